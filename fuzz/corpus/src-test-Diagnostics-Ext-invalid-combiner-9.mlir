func.func @identity_with_builtin(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{takes an identity only with combiner(custom); the built-in combiners have their own}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
