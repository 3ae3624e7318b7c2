// A full reduction into a 0-d memref, with an attribute dictionary.
func.func @total_prod(%X: memref<2x3xf64>, %P: memref<f64>) {
  ext.compute [#ext.axis<"r", reduce, 2>, #ext.axis<"s", reduce, 3>]
      ins(%X : memref<2x3xf64>) outs(%P : memref<f64>)
      maps [affine_map<(r, s) -> (r, s)>, affine_map<(r, s) -> ()>]
      combiner(prod) attributes {note = "all"} {
  ^bb0(%x: f64):
    ext.yield %x : f64
  }
  return
}
