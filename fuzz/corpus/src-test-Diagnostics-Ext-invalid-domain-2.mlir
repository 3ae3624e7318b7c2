func.func @zero_extent(%Y: memref<4xf32>) {
  // expected-error @+1 {{axis 'i' has extent 0; extents must be positive}}
  ext.compute [#ext.axis<"i", spatial, 0>] outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}
