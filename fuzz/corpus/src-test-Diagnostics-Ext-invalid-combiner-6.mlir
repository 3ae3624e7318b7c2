func.func @reducer_arity(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{reducer has 1 arguments, expected 2: the accumulated values, then the new ones}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}
