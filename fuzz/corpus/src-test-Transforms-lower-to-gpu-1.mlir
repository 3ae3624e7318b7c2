// A reduce axis over 256 threads: each thread strides over the row, a
// shuffle-xor butterfly inside each warp, lane 0 of each of the 8 warps
// publishes to workgroup memory between two barriers, thread 0 folds the 8
// values and stores.
func.func @row_sum(%X: memref<64x1000xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<64x1000xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 1000], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
