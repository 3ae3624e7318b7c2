// A reduce axis bound to threads: one tile covers the row, no fragment, no
// reduce loop; the tile compute writes the output tile itself.
func.func @row_max(%X: memref<64x1000xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<64x1000xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max)
      attributes {schedule = #ext.schedule<tile = [1, 1000], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
