func.func @output_axis_twice(%X: memref<4xf32>, %Y: memref<4x4xf32>) {
  // expected-error @+1 {{indexing map of output #0 uses axis 'i' twice}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4x4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i, i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
