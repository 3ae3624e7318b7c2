func.func @floordiv_negative(%A: memref<64x64xf32>, %C: memref<64xf32>) {
  // expected-error @+1 {{'ext.compute' op indexing map of input #0 divides by '-2' in 'd1 floordiv -2'}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A : memref<64x64xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k floordiv -2)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}
