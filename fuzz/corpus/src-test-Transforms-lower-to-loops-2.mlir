func.func @int_min(%X: memref<8x4xi32>, %M: memref<8xi32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, 4>]
      ins(%X : memref<8x4xi32>) outs(%M : memref<8xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(min) {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}
