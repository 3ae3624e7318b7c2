// ext-tile-ops-to-threads on its own, from a gpu.launch holding tile ops:
// every thread runs its share of each op, on `gpu.thread_id x`, with the
// barriers that shared data needs. Workgroup scratch for cross-warp
// reductions is left as ext.alloc_shared (ext-alloc-shared-to-workgroup's
// input).
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-tile-ops-to-threads | FileCheck %s
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-tile-ops-to-threads=drop-barrier=0 | FileCheck %s --check-prefix=DROP

// A copy into workgroup memory: each of the 64 threads moves one of its 64
// elements, branch-free: a clamped load and a select of zero outside the
// 10x6 source; a barrier follows, since other
// threads read what each wrote. The transposing tile compute then gives
// each thread one point (i = tid % 8, j = tid / 8 % 8), guarded by the
// bound 6 on j.
// CHECK-LABEL: func @copy_then_compute
// CHECK:         gpu.launch
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           %[[S:.*]] = memref.alloc() : memref<8x8xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[IN:.*]] = arith.andi
// CHECK:           %[[X:.*]] = memref.load %{{.*}} : memref<10x6xf32>
// CHECK:           %[[V0:.*]] = arith.select %[[IN]], %[[X]], %{{.*}} : f32
// CHECK:           memref.store %[[V0]], %[[S]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[OUT:.*]] = memref.subview
// CHECK:           %[[TI:.*]] = arith.remui %[[TID]], %c8
// CHECK:           %[[T1:.*]] = arith.divui %[[TID]], %c8
// CHECK:           %[[TJ:.*]] = arith.remui %[[T1]], %c8
// CHECK:           %[[OK:.*]] = arith.cmpi ult, %[[TI]], %c6
// CHECK:           scf.if %[[OK]] {
// CHECK:             %[[V:.*]] = memref.load %[[S]][%[[TI]], %[[TJ]]]
// CHECK:             memref.store %[[V]], %[[OUT]][%[[TJ]], %[[TI]]]
// CHECK:           gpu.terminator
// CHECK-NOT:     ext.
// Dropping barrier #0 leaves none.
// DROP-LABEL: func @copy_then_compute
// DROP-NOT:     gpu.barrier
// DROP:         gpu.terminator
func.func @copy_then_compute(%A: memref<10x6xf32>, %C: memref<10x8xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %s = memref.alloc() : memref<8x8xf32, #gpu.address_space<workgroup>>
    ext.copy %A[%c0, %c0] to %s : memref<10x6xf32> to memref<8x8xf32, #gpu.address_space<workgroup>>
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %v = memref.subview %C[0, 0] [8, 8] [1, 1] : memref<10x8xf32> to memref<8x8xf32, strided<[8, 1]>>
    ext.tile_compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>] threads [8, 8] bounds(%c8, %c6) ins(%s : memref<8x8xf32, #gpu.address_space<workgroup>>) outs(%v : memref<8x8xf32, strided<[8, 1]>>) maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>] {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A reduce axis over 64 threads (two warps): a butterfly of shuffles inside
// each warp, each warp's lane 0 stores its partial into workgroup scratch
// between barriers, and the axis' thread 0 combines the warps' partials and
// stores the row.
// CHECK-LABEL: func @row_sum
// CHECK:         gpu.launch
// CHECK:           %[[SCRATCH:.*]] = ext.alloc_shared : memref<4x2xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           %[[K:.*]] = arith.remui %[[TID]], %c64
// CHECK:           scf.for %{{.*}} = %[[K]] to %c64{{.*}} step %c64{{.*}} iter_args
// CHECK:             memref.load %{{.*}} : memref<4x64xf32>
// CHECK:             arith.addf
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           gpu.barrier
// CHECK:           memref.store %{{.*}}, %[[SCRATCH]]
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[SCRATCH]]
// CHECK:           scf.for
// CHECK:             memref.load %[[SCRATCH]]
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %c0
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}} : memref<4xf32>
// CHECK:           gpu.terminator
// CHECK-NOT:     ext.tile_compute
// DROP-LABEL: func @row_sum
// DROP-COUNT-1: gpu.barrier
// DROP-NOT:     gpu.barrier

func.func @row_sum(%A: memref<4x64xf32>, %C: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    ext.tile_compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 64>] threads [4, 64] ins(%A : memref<4x64xf32>) outs(%C : memref<4xf32>) maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Threads are numbered along x only.
func.func @two_dimensional_block(%C: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'gpu.launch' op with ext tile ops needs a constant one-dimensional block size}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1) {
    ext.tile_compute [#ext.axis<"i", spatial, 4>] threads [4] outs(%C : memref<4xf32>) maps [affine_map<(i) -> (i)>] {
      %zero = arith.constant 0.0 : f32
      ext.yield %zero : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A staged output tile (32x32, rows padded to 36) stored into a 100x90
// output at (64, 32): a barrier before (the tile's writers are done) and
// after (its readers are done); each of 128 threads stores 4 vectors of 2
// floats (90-float rows keep 4-float vectors unaligned), row-major over the
// tile, each under one bounds check of its first element.
// CHECK-LABEL: func @store_tile
// CHECK:         gpu.barrier
// CHECK-COUNT-4: vector.load %{{.*}} : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK:         gpu.barrier
// CHECK-NOT:     ext.store_tile
// DROP-LABEL: func @store_tile
// DROP-NOT:     gpu.barrier
// DROP:         vector.store
// DROP:         gpu.barrier
func.func @store_tile(%C: memref<100x90xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]} : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
    // expected-remark @below {{stores 2 element(s) at a time instead of 4: the target's rows are 90 elements long}}
    ext.store_tile %s to %C[%c64, %c32] {vector = 4 : i64} : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>> to memref<100x90xf32>
    gpu.terminator
  }
  return
}
