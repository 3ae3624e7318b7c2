// Strided access (stride-2 pooling window), min combiner.
func.func @min_pool(%X: memref<9xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"o", spatial, 4>, #ext.axis<"w", reduce, 3>]
      ins(%X : memref<9xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(o, w) -> (o * 2 + w)>, affine_map<(o, w) -> (o)>]
      combiner(min) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
