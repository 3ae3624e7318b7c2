func.func @duplicate_axis(%X: memref<4x4xf32>, %Y: memref<4x4xf32>) {
  // expected-error @+1 {{names axis 'i' twice (axes #0 and #1)}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"i", spatial, 4>]
      ins(%X : memref<4x4xf32>) outs(%Y : memref<4x4xf32>)
      maps [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
