// RUN: ext-opt %s --split-input-file --ext-apply-schedule | FileCheck %s

// A ragged 100x90x70 matmul on 32x32x16 tiles: a 4x3 tile grid, 5 reduce
// iterations, A and B staged in shared memory (A's rows padded to 33), a
// 32x32 fragment over 8x16 threads, edge bounds min(32, 100 - 32 ti).
// CHECK-LABEL: func @matmul
// CHECK:       ext.kernel tiles [4, 3] iters 5 threads 128 decomposition #ext.data_parallel swizzle 4 combiner(sum) {
// CHECK-NEXT:  ^bb0(%[[TI:.*]]: index, %[[TJ:.*]]: index, %[[KB:.*]]: index, %[[KE:.*]]: index):
// CHECK:         %[[OI:.*]] = arith.muli %[[TI]], %{{.*}}
// CHECK:         %[[REM:.*]] = arith.subi %{{.*}}, %[[OI]]
// CHECK:         %[[BI:.*]] = arith.minsi %{{.*}}, %[[REM]]
// CHECK:         %[[SA:.*]] = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]} : memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
// CHECK:         %[[SB:.*]] = ext.alloc_shared : memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
// CHECK:         %[[F:.*]] = ext.alloc_fragment threads [8, 16] : memref<32x32xf32>
// CHECK:         ext.tile_compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>] threads [8, 16] outs(%[[F]]
// CHECK:           arith.constant 0.000000e+00 : f32
// CHECK:         scf.for %[[KT:.*]] = %[[KB]] to %[[KE]]
// CHECK:           %[[KO:.*]] = arith.muli %[[KT]]
// CHECK:           ext.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[SA]]
// CHECK:           ext.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[SB]]
// CHECK:           ext.tile_compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>] threads [8, 16, 1] bounds(%[[BI]], %{{.*}}, %{{.*}}) ins(%[[SA]], %[[SB]] {{.*}} outs(%[[F]] {{.*}} combiner(sum) accumulate
// CHECK:         ext.kernel_yield %[[F]] : memref<32x32xf32>
// CHECK:       } epilogue {
// CHECK:         %[[VIEW:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [32, 32] [1, 1]
// CHECK:         ext.tile_compute {{.*}} threads [8, 16] bounds({{.*}}) ins(%{{.*}} : memref<32x32xf32>) outs(%[[VIEW]]
// CHECK-NOT:   ext.compute
func.func @matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>], swizzle = 4>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A reduce axis bound to threads: one tile covers the row, no fragment, no
// reduce loop; the tile compute writes the output tile itself.
// CHECK-LABEL: func @row_max
// CHECK:       ext.kernel tiles [64] iters 1 threads 256
// CHECK-NOT:     ext.alloc_fragment
// CHECK:         %[[XV:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [1, 1000] [1, 1]
// CHECK:         %[[YV:.*]] = memref.subview %{{.*}}[%{{.*}}] [1] [1]
// CHECK:         ext.tile_compute [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>] threads [1, 256] bounds({{.*}}) ins(%[[XV]] {{.*}} outs(%[[YV]] {{.*}} combiner(max) {
// CHECK:         ext.kernel_yield
// CHECK:       } epilogue {
// CHECK-NEXT:  ^bb0(%{{.*}}: index):
// CHECK-NEXT:    ext.kernel_yield
func.func @row_max(%X: memref<64x1000xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<64x1000xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max)
      attributes {schedule = #ext.schedule<tile = [1, 1000], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// ext.index in the body becomes the global index: tile-local + offset.
// CHECK-LABEL: func @iota
// CHECK:       ext.kernel tiles [4] iters 1 threads 32
// CHECK:         %[[OFF:.*]] = arith.muli %{{.*}}, %c32
// CHECK:         ext.tile_compute
// CHECK:           %[[L:.*]] = ext.index "i" : index
// CHECK:           %[[G:.*]] = arith.addi %[[L]], %[[OFF]] : index
// CHECK:           ext.yield %[[G]] : index
func.func @iota(%Y: memref<100xindex>) {
  ext.compute [#ext.axis<"i", spatial, 100>] outs(%Y : memref<100xindex>)
      maps [affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [32], blocks = ["i"], threads = [32]>} {
  ^bb0:
    %i = ext.index "i" : index
    ext.yield %i : index
  }
  return
}

// -----

// Computes without a schedule stay as they are.
// CHECK-LABEL: func @unscheduled
// CHECK:       ext.compute
// CHECK-NOT:   ext.kernel
func.func @unscheduled(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// The output cached (operand 2 = output #0): the epilogue writes the
// fragments by their layout into a shared tile laid out by the cache's
// storage_align (no bounds: the whole tile), then stores the tile to the
// output window in coalesced rows, vector-wide as the schedule allows.
// CHECK-LABEL: func @staged_output
// CHECK:       } epilogue {
// CHECK:         %[[S:.*]] = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]} : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK:         ext.tile_compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>] threads [8, 16] ins(%{{.*}} : memref<32x32xf32>) outs(%[[S]] : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>)
// CHECK:         ext.store_tile %[[S]] to %{{.*}}[%{{.*}}, %{{.*}}] {vector = 4 : i64} : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>> to memref<100x90xf32>
// CHECK-NEXT:    ext.kernel_yield
func.func @staged_output(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1], vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 2, align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
