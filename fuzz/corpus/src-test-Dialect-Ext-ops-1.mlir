func.func @batched_matmul(%A: memref<4x8x16xf32>, %B: memref<4x16x8xf32>, %C: memref<4x8x8xf32>) {
  ext.compute [#ext.axis<"b", spatial, 4>, #ext.axis<"i", spatial, 8>,
               #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 16>]
      ins(%A, %B : memref<4x8x16xf32>, memref<4x16x8xf32>) outs(%C : memref<4x8x8xf32>)
      maps [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, k, j)>,
            affine_map<(b, i, j, k) -> (b, i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
