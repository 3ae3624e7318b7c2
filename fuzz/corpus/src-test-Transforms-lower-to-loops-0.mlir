// Spatial loops outermost, the reduce loop innermost carrying the
// accumulator from the combiner's identity; one store per output element.
func.func @matmul(%A: memref<64x16xf32>, %B: memref<16x32xf32>, %C: memref<64x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>]
      ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>) outs(%C : memref<64x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
