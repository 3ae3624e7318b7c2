func.func @access_out_of_bounds(%I: memref<9x9xf32>, %O: memref<8x8xf32>) {
  // expected-error @+1 {{access 'd0 + d2' of input #0 dimension #0 ranges over [0, 9], outside [0, 9)}}
  ext.compute [#ext.axis<"oh", spatial, 8>, #ext.axis<"ow", spatial, 8>,
               #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>]
      ins(%I : memref<9x9xf32>) outs(%O : memref<8x8xf32>)
      maps [affine_map<(oh, ow, kh, kw) -> (oh + kh, ow + kw)>,
            affine_map<(oh, ow, kh, kw) -> (oh, ow)>]
      combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
