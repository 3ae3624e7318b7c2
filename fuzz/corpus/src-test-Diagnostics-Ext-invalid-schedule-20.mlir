func.func @bad_raster(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{raster must be 'row' or 'col', got 'diagonal'}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], raster = diagonal>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
