// Built-in identities: max starts from -inf, min from the largest signed int.
func.func @row_max(%X: memref<8x128xf32>, %M: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, 128>]
      ins(%X : memref<8x128xf32>) outs(%M : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
