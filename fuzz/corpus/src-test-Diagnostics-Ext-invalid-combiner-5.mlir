func.func @custom_without_reducer(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{with combiner(custom) needs a reducer region}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
