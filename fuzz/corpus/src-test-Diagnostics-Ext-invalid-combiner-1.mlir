func.func @combiner_without_reduce(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{has a combiner but no reduce axis to combine over}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
