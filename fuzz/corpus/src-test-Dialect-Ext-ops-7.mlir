// Elementwise: no reduce axis, no combiner; a captured scalar; dynamic dims.
func.func @scale(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %alpha: f32) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<?x8xf32>) outs(%Y : memref<?x8xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%x: f32):
    %s = arith.mulf %x, %alpha : f32
    ext.yield %s : f32
  }
  return
}
