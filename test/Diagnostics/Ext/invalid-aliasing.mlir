// RUN: ext-opt %s --split-input-file --verify-diagnostics -o /dev/null
// An output that is also an input is allowed only element-wise (each element
// read by the point that writes it): C = A @ C, a reduction over its own
// output, and the same through a cast are refused; X = 2 * X in place is not.

func.func @matmul_into_its_input(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {
  // expected-error @+1 {{'ext.compute' op output #0 is also input #1, read at affine_map<(d0, d1, d2) -> (d2, d1)> but written at affine_map<(d0, d1, d2) -> (d0, d1)>: points would read elements other points already overwrote; write into a separate buffer}}
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 8>]
      ins(%A, %C : memref<8x8xf32>, memref<8x8xf32>) outs(%C : memref<8x8xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @reduce_over_own_output(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {
  // expected-error @+1 {{'ext.compute' op output #0 is also input #1 of a reduction: each element is read by every point of the reduce axes while the result is written over it; write into a separate buffer}}
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 8>]
      ins(%A, %C : memref<8x8xf32>, memref<8x8xf32>) outs(%C : memref<8x8xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @transpose_through_a_cast(%X: memref<8x8xf32>) {
  %Y = memref.cast %X : memref<8x8xf32> to memref<?x8xf32>
  // expected-error @+1 {{'ext.compute' op output #0 is also input #0 (a cast of the same memref), read at affine_map<(d0, d1) -> (d1, d0)> but written at affine_map<(d0, d1) -> (d0, d1)>}}
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<8x8xf32>) outs(%Y : memref<?x8xf32>)
      maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// Element-wise in place: each element is read by the point that writes it.
func.func @scale_in_place(%X: memref<8x8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<8x8xf32>) outs(%X : memref<8x8xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%x: f32):
    %y = arith.addf %x, %x : f32
    ext.yield %y : f32
  }
  return
}
