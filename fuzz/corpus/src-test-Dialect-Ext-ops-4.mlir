// Convolution as an affine access: the input is read at (oh + kh, ow + kw).
func.func @conv2d(%I: memref<1x3x10x10xf32>, %W: memref<4x3x3x3xf32>, %O: memref<1x4x8x8xf32>) {
  ext.compute [#ext.axis<"n", spatial, 1>, #ext.axis<"f", spatial, 4>,
               #ext.axis<"oh", spatial, 8>, #ext.axis<"ow", spatial, 8>,
               #ext.axis<"c", reduce, 3>, #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>]
      ins(%I, %W : memref<1x3x10x10xf32>, memref<4x3x3x3xf32>) outs(%O : memref<1x4x8x8xf32>)
      maps [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>]
      combiner(sum) {
  ^bb0(%i: f32, %w: f32):
    %p = arith.mulf %i, %w : f32
    ext.yield %p : f32
  }
  return
}
