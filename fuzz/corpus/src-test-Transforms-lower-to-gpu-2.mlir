// A reduce axis over threads that is not the fastest (stride 4 in the
// thread id): a workgroup-memory tree with a barrier per halving step.
func.func @column_sum(%X: memref<16x8xi32>, %Y: memref<8xi32>) {
  ext.compute [#ext.axis<"r", reduce, 16>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<16x8xi32>) outs(%Y : memref<8xi32>)
      maps [affine_map<(r, j) -> (r, j)>, affine_map<(r, j) -> (j)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [16, 4], blocks = ["j"], threads = [16, 4]>} {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}
