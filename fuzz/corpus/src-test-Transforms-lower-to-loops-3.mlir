// Two reduce axes: nested reduce loops thread the accumulator through; the
// reduce axis between the spatial ones still goes innermost.
func.func @two_reduce_axes(%X: memref<3x4x5x6xi32>, %Y: memref<6x3xi32>) {
  ext.compute [#ext.axis<"a", spatial, 3>, #ext.axis<"r0", reduce, 4>,
               #ext.axis<"r1", reduce, 5>, #ext.axis<"b", spatial, 6>]
      ins(%X : memref<3x4x5x6xi32>) outs(%Y : memref<6x3xi32>)
      maps [affine_map<(a, r0, r1, b) -> (a, r0, r1, b)>, affine_map<(a, r0, r1, b) -> (b, a)>]
      combiner(sum) {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}
