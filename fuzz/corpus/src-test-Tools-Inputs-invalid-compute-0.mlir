// A reduce axis without a combiner.
func.func @main(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
