func.func @row_sum_threads(%X: memref<64x1024xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1024>]
      ins(%X : memref<64x1024xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 1024], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
