// RUN: ext-opt %s --split-input-file | FileCheck %s
// RUN: ext-opt %s --split-input-file > %t.1.mlir
// RUN: ext-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: ext-opt %s --split-input-file --mlir-print-op-generic | ext-opt --split-input-file > %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir

// Every built-in decomposition, with and without its optional parameters.
// CHECK-LABEL: func @decompositions
// CHECK-SAME: d0 = #ext.data_parallel
// CHECK-SAME: d1 = #ext.split_k<slices = 4>
// CHECK-SAME: d2 = #ext.split_k<slices = 2, mode = parallel>
// CHECK-SAME: d3 = #ext.split_k<slices = 3>
// CHECK-SAME: d4 = #ext.stream_k
// CHECK-SAME: d5 = #ext.stream_k<grid = 7>
// CHECK-SAME: d6 = #ext.stream_k<grid = 7, sms = 108>
// CHECK-SAME: d7 = #ext.stream_k_dp
// CHECK-SAME: d8 = #ext.stream_k_dp<sms = 132>
// CHECK-SAME: d9 = #ext.stream_k_2tile
// CHECK-SAME: e0 = #ext.stream_k_2tile<sms = 104>
// CHECK-SAME: e1 = #ext.auto
// CHECK-SAME: e2 = #ext.auto<sms = 304>
func.func @decompositions() attributes {
    d0 = #ext.data_parallel, d1 = #ext.split_k<slices = 4, mode = serial>,
    d2 = #ext.split_k<slices = 2, mode = parallel>, d3 = #ext.split_k<slices = 3>,
    d4 = #ext.stream_k, d5 = #ext.stream_k<grid = 7>, d6 = #ext.stream_k<sms = 108, grid = 7>,
    d7 = #ext.stream_k_dp, d8 = #ext.stream_k_dp<sms = 132>,
    d9 = #ext.stream_k_2tile, e0 = #ext.stream_k_2tile<sms = 104>,
    e1 = #ext.auto, e2 = #ext.auto<sms = 304>} {
  return
}

// -----

// A kernel with a custom combiner (argmax) carries it for the fixup.
// CHECK-LABEL: func @kernel_argmax
// CHECK: ext.kernel tiles [4] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
// CHECK-SAME: combiner(custom) identity [0xFF800000 : f32, -1 : i32]
// CHECK: reducer
func.func @kernel_argmax() {
  ext.kernel tiles [4] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%t: index, %kb: index, %ke: index):
    %v = ext.alloc_fragment threads [8] : memref<8xf32>
    %i = ext.alloc_fragment threads [8] : memref<8xi32>
    ext.kernel_yield %v, %i : memref<8xf32>, memref<8xi32>
  } epilogue {
  ^bb0(%t: index, %v: memref<8xf32>, %i: memref<8xi32>):
    ext.kernel_yield
  } reducer {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %rv = arith.select %gt, %bv, %av : f32
    %ri = arith.select %gt, %bi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}
