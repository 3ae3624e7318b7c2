// ext-from-linalg keeps linalg's meaning: a conv_2d_nchw_fchw accumulating
// onto a fill of 0.5 (not the sum's identity: reduced into a fresh buffer,
// then added) and a strided pooling_nchw_max after a fill of -inf (dropped)
// give, as ext.computes, the same numbers as linalg's own loops.
// RUN: ext-run %s | sed 1d > %t.linalg.txt
// RUN: ext-opt --ext-from-linalg %s -o %t.ext.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.ext.mlir
// RUN: ext-run %t.ext.mlir | sed 1d > %t.ext.txt
// RUN: diff %t.linalg.txt %t.ext.txt
// RUN: FileCheck %s < %t.ext.txt
// IR-LABEL: func.func @conv
// IR-NOT: linalg.
// IR: {name = "fill_0"}
// IR: combiner(sum) attributes {name = "conv_2d_nchw_fchw_1"}
// IR: {name = "conv_2d_nchw_fchw_acc_2"}
// IR-LABEL: func.func @pool
// IR-NOT: linalg.
// IR: combiner(max) attributes {name = "pooling_nchw_max_0"}
// CHECK: [89.5, 24.5, 24.5, 89.5],
// CHECK-NEXT: [50.5, 89.5, 89.5, 24.5],
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @conv(%I: memref<1x8x10x10xf32>, %F: memref<4x8x3x3xf32>, %O: memref<1x4x8x8xf32>) {
  %z = arith.constant 0.5 : f32
  linalg.fill ins(%z : f32) outs(%O : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw ins(%I, %F : memref<1x8x10x10xf32>, memref<4x8x3x3xf32>) outs(%O : memref<1x4x8x8xf32>)
  return
}
func.func @pool(%I: memref<1x4x8x8xf32>, %W: memref<2x2xf32>, %O: memref<1x4x4x4xf32>) {
  %n = arith.constant 0xFF800000 : f32
  linalg.fill ins(%n : f32) outs(%O : memref<1x4x4x4xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%I, %W : memref<1x4x8x8xf32>, memref<2x2xf32>) outs(%O : memref<1x4x4x4xf32>)
  return
}
#m4 = affine_map<(a,b,c,d) -> (a,b,c,d)>
func.func @main() {
  %I = memref.alloc() : memref<1x8x10x10xf32>
  %F = memref.alloc() : memref<4x8x3x3xf32>
  %O = memref.alloc() : memref<1x4x8x8xf32>
  %P = memref.alloc() : memref<1x4x4x4xf32>
  %W = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [#m4], iterator_types = ["parallel","parallel","parallel","parallel"]} outs(%I : memref<1x8x10x10xf32>) {
  ^bb0(%o: f32):
    %a = linalg.index 1 : index
    %b = linalg.index 2 : index
    %c = linalg.index 3 : index
    %v = affine.apply affine_map<(a,b,c) -> ((a * 7 + b * 3 + c * 5) mod 13 - 6)>(%a, %b, %c)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  linalg.generic {indexing_maps = [#m4], iterator_types = ["parallel","parallel","parallel","parallel"]} outs(%F : memref<4x8x3x3xf32>) {
  ^bb0(%o: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %c = linalg.index 2 : index
    %d = linalg.index 3 : index
    %v = affine.apply affine_map<(a,b,c,d) -> ((a * 5 + b * 3 + c * 2 + d) mod 7 - 3)>(%a, %b, %c, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  call @conv(%I, %F, %O) : (memref<1x8x10x10xf32>, memref<4x8x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  call @pool(%O, %W, %P) : (memref<1x4x8x8xf32>, memref<2x2xf32>, memref<1x4x4x4xf32>) -> ()
  %u = memref.cast %P : memref<1x4x4x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
