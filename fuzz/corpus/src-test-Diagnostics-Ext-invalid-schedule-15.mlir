func.func @bad_vector(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+2 {{schedule vector width must be 1, 2, 4 or 8, got 3}}
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], vector = 3>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
