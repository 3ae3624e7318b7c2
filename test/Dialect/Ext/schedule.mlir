// RUN: ext-opt %s --split-input-file | FileCheck %s
// RUN: ext-opt %s --split-input-file > %t.1.mlir
// RUN: ext-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: ext-opt %s --split-input-file --mlir-print-op-generic | ext-opt --split-input-file > %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir

// A schedule on a compute: every key, in any order on input, printed in a
// fixed order with defaults left out.
// CHECK-LABEL: func @scheduled_matmul
// CHECK: schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
// CHECK-SAME: cache = [#ext.cache<operand = 0, align = [<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>],
// CHECK-SAME: decomposition = #ext.data_parallel, raster = col, swizzle = 4, vector = 4, unroll = 2>
func.func @scheduled_matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<unroll = 2, tile = [32, 32, 16],
        threads = [8, 16, 1], blocks = ["i", "j"], swizzle = 4, raster = col, vector = 4,
        decomposition = #ext.data_parallel,
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>,
                 #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @row_sum_threads
// CHECK: schedule = #ext.schedule<tile = [1, 1024], blocks = ["i"], threads = [1, 256]>
func.func @row_sum_threads(%X: memref<64x1024xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1024>]
      ins(%X : memref<64x1024xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 1024], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// The tile level: a kernel with shared buffers, a fragment, a copy and tile
// computes.
// CHECK-LABEL: func @tile_level
// CHECK: ext.kernel tiles [2, 3] iters 4 threads 64 decomposition #ext.data_parallel raster col swizzle 2 {
// CHECK: ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]} : memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
// CHECK: ext.alloc_fragment threads [8, 8] : memref<16x16xf32>
// CHECK: ext.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {vector = 2 : i64}
// CHECK: ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>, #ext.axis<"k", reduce, 8>] threads [8, 8, 1] bounds(
// CHECK-SAME: combiner(sum) accumulate
// CHECK: ext.kernel_yield %{{.*}} : memref<16x16xf32>
// CHECK: } epilogue {
func.func @tile_level(%A: memref<32x32xf32>, %B: memref<32x48xf32>) {
  ext.kernel tiles [2, 3] iters 4 threads 64 decomposition #ext.data_parallel raster col swizzle 2 {
  ^bb0(%ti: index, %tj: index, %kb: index, %ke: index):
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]}
        : memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    %f = ext.alloc_fragment threads [8, 8] : memref<16x16xf32>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    ext.copy %A[%c0, %c0] to %s {vector = 2 : i64} : memref<32x32xf32> to memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    %bv = memref.subview %B[0, 0] [8, 16] [1, 1] : memref<32x48xf32> to memref<8x16xf32, strided<[48, 1]>>
    ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>, #ext.axis<"k", reduce, 8>]
        threads [8, 8, 1] bounds(%c16, %c16, %c8)
        ins(%s, %bv : memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>, memref<8x16xf32, strided<[48, 1]>>)
        outs(%f : memref<16x16xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
        combiner(sum) accumulate {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      ext.yield %p : f32
    }
    ext.kernel_yield %f : memref<16x16xf32>
  } epilogue {
  ^bb0(%ti: index, %tj: index, %f: memref<16x16xf32>):
    ext.kernel_yield
  }
  return
}

// -----

// A fragment layout in the schedule, and on the tile ops it becomes.
// CHECK-LABEL: func @blocked_layout
// CHECK: layout = #ext.blocked<thread_tile = [2, 4]>, vector = 4>
// CHECK: ext.alloc_fragment threads [4, 4] layout(#ext.blocked<thread_tile = [2, 4]>) : memref<16x16xf32>
// CHECK: ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>] threads [4, 4] layout #ext.cyclic
func.func @blocked_layout(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>]
      ins(%A : memref<32x32xf32>) outs(%B : memref<32x32xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [16, 16], blocks = ["i", "j"], threads = [4, 4],
                                           layout = #ext.blocked<thread_tile = [2, 4]>, vector = 4>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  %f = ext.alloc_fragment threads [4, 4] layout(#ext.blocked<thread_tile = [2, 4]>) : memref<16x16xf32>
  ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>] threads [4, 4] layout #ext.cyclic
      outs(%f : memref<16x16xf32>) maps [affine_map<(i, j) -> (i, j)>] {
    %z = arith.constant 0.0 : f32
    ext.yield %z : f32
  }
  return
}

// -----

// The k-steps of a reduce axis of dynamic extent, counted on the host; a
// copy from a source whose rows are a stated multiple of 4 long.
// CHECK-LABEL: func @dynamic_iters
// CHECK: ext.kernel tiles [2] iters %{{.*}} threads 32 decomposition #ext.stream_k<grid = 3> combiner(sum) {
// CHECK: ext.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {row_multiple = 4 : i64, vector = 4 : i64} : memref<32x?xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
func.func @dynamic_iters(%A: memref<32x?xf32>, %k: index) {
  ext.kernel tiles [2] iters %k threads 32 decomposition #ext.stream_k<grid = 3> combiner(sum) {
  ^bb0(%ti: index, %kb: index, %ke: index):
    %s = ext.alloc_shared : memref<16x8xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    ext.copy %A[%c0, %c0] to %s {vector = 4 : i64, row_multiple = 4 : i64} : memref<32x?xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
    ext.kernel_yield
  } epilogue {
  ^bb0(%ti: index):
    ext.kernel_yield
  }
  return
}
