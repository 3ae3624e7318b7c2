// ext-tile-ops-to-threads family by family (TileLowering.h): each split
// starts from a gpu.launch holding the tile ops one lowering unit owns
// (fragments, copies and their pipeline, tile computes across threads, the
// accumulation strategies) and checks the structure it leaves.
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-tile-ops-to-threads | FileCheck %s

// Fragments (TileFragments.cpp) and the element-wise accumulation strategy
// (ElementwiseAccumulation.cpp): a 8x8 fragment over 4x4 threads is a
// private 2x2 buffer per thread; zeroed point by point, accumulated by
// register blocking (one math.fma per point and k step, the inputs read
// from shared memory once per k step; the 4 k steps unrolled), then stored
// point by point.
// CHECK-LABEL: func @fragment_accumulation
// CHECK:         gpu.launch
// CHECK-SAME:      private(%[[F:.*]] : memref<2x2xf32, #gpu.address_space<private>>)
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK-COUNT-4:   memref.store %{{.*}}, %[[F]]
// CHECK-NOT:       scf.for
// CHECK-COUNT-16:  math.fma
// CHECK-NOT:       math.fma
// CHECK-COUNT-4:   memref.load %[[F]]
// CHECK-NOT:     ext.
func.func @fragment_accumulation(%C: memref<8x8xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<8x4xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<4x8xf32, #gpu.address_space<workgroup>>
    %f = ext.alloc_fragment threads [4, 4] : memref<8x8xf32>
    ext.tile_compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>] threads [4, 4] outs(%f : memref<8x8xf32>) maps [affine_map<(i, j) -> (i, j)>] {
      %zero = arith.constant 0.0 : f32
      ext.yield %zero : f32
    }
    ext.tile_compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 4>] threads [4, 4, 1] ins(%a, %b : memref<8x4xf32, #gpu.address_space<workgroup>>, memref<4x8xf32, #gpu.address_space<workgroup>>) outs(%f : memref<8x8xf32>) maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>] combiner(sum) accumulate {
    ^bb0(%x: f32, %y: f32):
      %p = arith.mulf %x, %y : f32
      ext.yield %p : f32
    }
    ext.tile_compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>] threads [4, 4] ins(%f : memref<8x8xf32>) outs(%C : memref<8x8xf32>) maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Synchronous copies (TileCopies.cpp): index arithmetic between two copies
// keeps them one group, so one barrier follows the second; a loop that
// copies into shared memory ends with a barrier.
// CHECK-LABEL: func @copy_group_in_loop
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}} : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:       gpu.barrier
// CHECK:           arith.addi
// CHECK:           memref.store %{{.*}} : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      gpu.barrier
// CHECK:           memref.load
// CHECK:           gpu.barrier
// CHECK-NEXT:    }
func.func @copy_group_in_loop(%A: memref<64x32xf32>, %C: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %s0 = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
    %s1 = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
    scf.for %it = %c0 to %c4 step %c1 {
      %r0 = arith.muli %it, %c4 : index
      ext.copy %A[%r0, %c0] to %s0 : memref<64x32xf32> to memref<4x32xf32, #gpu.address_space<workgroup>>
      %r1 = arith.addi %r0, %c4 : index
      ext.copy %A[%r1, %c0] to %s1 : memref<64x32xf32> to memref<4x32xf32, #gpu.address_space<workgroup>>
      ext.tile_compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 32>] threads [4, 32] ins(%s0, %s1 : memref<4x32xf32, #gpu.address_space<workgroup>>, memref<4x32xf32, #gpu.address_space<workgroup>>) outs(%C : memref<4x32xf32>) maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        ext.yield %s : f32
      }
    }
    gpu.terminator
  }
  return
}

// -----

// A staged async copy (TileCopies.cpp): per thread two 16-byte cp.async
// (256 floats in vectors of 4 over 32 threads), zero fill through
// srcElements; the commit closes a group, the wait counts groups and is
// followed by a barrier.
// CHECK-LABEL: func @async_copy_pipeline
// CHECK:         gpu.launch
// CHECK-COUNT-2:   nvgpu.device_async_copy {{.*}} {bypassL1}
// CHECK:           %[[G:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT:      nvgpu.device_async_wait %[[G]] {numGroups = 0 : i32}
// CHECK-NEXT:      gpu.barrier
// CHECK-NOT:     ext.
func.func @async_copy_pipeline(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %s = memref.alloc() : memref<8x32xf32, #gpu.address_space<workgroup>>
    ext.copy %A[%c0, %c0] to %s staged async {vector = 4 : i64} : memref<64x64xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
    ext.copy_commit
    ext.copy_wait pending = 0
    gpu.terminator
  }
  return
}

// -----

// A copy staged in registers (TileCopies.cpp): the loads go to a private
// buffer at the copy, its stores to shared memory wait for the commit; the
// wait is a barrier only (no cp.async in the launch).
// CHECK-LABEL: func @register_staged_copy
// CHECK:         gpu.launch
// CHECK-SAME:      private(%[[R:.*]] : memref<8xf32, #gpu.address_space<private>>)
// CHECK-COUNT-2:   vector.store %{{.*}}, %[[R]]
// CHECK:           memref.load %{{.*}} : memref<1xf32>
// CHECK-COUNT-2:   vector.load %[[R]]
// CHECK-NOT:       nvgpu.
// CHECK:           gpu.barrier
// CHECK-NOT:     ext.
func.func @register_staged_copy(%A: memref<64x64xf32>, %flag: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %s = memref.alloc() : memref<8x32xf32, #gpu.address_space<workgroup>>
    ext.copy %A[%c0, %c0] to %s staged registers {vector = 4 : i64} : memref<64x64xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
    %x = memref.load %flag[%c0] : memref<1xf32>
    ext.copy_commit
    ext.copy_wait pending = 0
    gpu.terminator
  }
  return
}

// -----

// A reduce axis over threads that is not the fastest (TileCompute.cpp):
// the 8 threads of k are 4 apart, so the partials combine through a tree
// in workgroup scratch (ext.alloc_shared, one slot per thread), three
// halving steps, each followed by a barrier; the axis' thread 0 stores.
// CHECK-LABEL: func @tree_reduction
// CHECK:         gpu.launch
// CHECK:           %[[S:.*]] = ext.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// CHECK:           memref.store %{{.*}}, %[[S]]
// CHECK:           gpu.barrier
// CHECK-COUNT-3:   gpu.barrier
// CHECK:           memref.load %[[S]]
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}} : memref<4xf32>
// CHECK-NOT:     ext.tile_compute
func.func @tree_reduction(%A: memref<8x4xf32>, %C: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    ext.tile_compute [#ext.axis<"k", reduce, 8>, #ext.axis<"i", spatial, 4>] threads [8, 4] ins(%A : memref<8x4xf32>) outs(%C : memref<4xf32>) maps [affine_map<(k, i) -> (k, i)>, affine_map<(k, i) -> (i)>] combiner(sum) {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}

// -----

// The #ext.mma strategy (MmaAccumulation.cpp): C += A * B on m16n8k16 with
// A and B in shared memory becomes ldmatrix loads and mma.sync per warp
// and k step; the accumulators live in the lanes' registers.
// CHECK-LABEL: func @mma_accumulation
// CHECK:         gpu.launch
// CHECK-SAME:      private(%{{.*}} : memref<{{.*}}xf32, #gpu.address_space<private>>)
// CHECK:           nvgpu.ldmatrix
// CHECK:           nvgpu.mma.sync
// CHECK-NOT:     ext.tile_compute
func.func @mma_accumulation() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %a = ext.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = ext.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %f = ext.alloc_fragment threads [4, 32] layout(#ext.mma<m16n8k16, warps = [2, 2]>) : memref<64x64xf32>
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>] threads [4, 32, 1] layout #ext.mma<m16n8k16, warps = [2, 2]> ins(%a, %b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>) outs(%f : memref<64x64xf32>) maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>] combiner(sum) accumulate {
    ^bb0(%x: f16, %y: f16):
      %xe = arith.extf %x : f16 to f32
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %xe, %ye : f32
      ext.yield %p : f32
    }
    gpu.terminator
  }
  return
}
