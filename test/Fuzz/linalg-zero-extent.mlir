// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-from-linalg | FileCheck %s
// Issue 59: a linalg op with a loop of size 0 reached #ext.axis's builder,
// whose verifier printed "extents must be positive" and then failed its
// assertion (ext-opt aborted; through Python, the interpreter died). The
// range is checked before any attribute is built: such an op computes
// nothing, and it stays linalg (host loops that run no iteration).

// CHECK-LABEL: func.func @empty_rows
// CHECK: linalg.matmul
// CHECK-NOT: ext.compute
func.func @empty_rows(%A: memref<0x4xf32>, %B: memref<4x8xf32>, %C: memref<0x8xf32>) {
  // expected-remark @below {{ext-from-linalg: stays linalg: loop d0 has size 0, so the op computes nothing (an ext.compute's axes need positive extents); it stays host code}}
  linalg.matmul ins(%A, %B : memref<0x4xf32>, memref<4x8xf32>) outs(%C : memref<0x8xf32>)
  return
}

// -----

// An empty reduction (k = 0) leaves C as it is; the op beside it is still
// converted, and numbered as if the empty one were not there.
// CHECK-LABEL: func.func @empty_reduction
// CHECK: linalg.matmul
// CHECK: ext.compute
// CHECK-SAME: name = "generic_0"
func.func @empty_reduction(%A: memref<8x0xf32>, %B: memref<0x8xf32>, %C: memref<8x8xf32>, %D: memref<8x8xf32>) {
  // expected-remark @below {{ext-from-linalg: stays linalg: loop d2 has size 0}}
  linalg.matmul ins(%A, %B : memref<8x0xf32>, memref<0x8xf32>) outs(%C : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%C : memref<8x8xf32>) outs(%D : memref<8x8xf32>) {
  ^bb0(%c: f32, %d: f32):
    %r = arith.negf %c : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tensors: bufferized first, then the same check.
// CHECK-LABEL: func.func @empty_tensor
// CHECK: linalg.generic
// CHECK-NOT: ext.compute
func.func @empty_tensor(%X: tensor<0x16xf32>) -> tensor<0x16xf32> {
  %e = tensor.empty() : tensor<0x16xf32>
  // expected-remark @below {{ext-from-linalg: stays linalg: loop d0 has size 0}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%X : tensor<0x16xf32>) outs(%e : tensor<0x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<0x16xf32>
  return %r : tensor<0x16xf32>
}
