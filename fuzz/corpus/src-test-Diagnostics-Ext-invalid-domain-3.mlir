func.func @unknown_axis_kind(%Y: memref<4xf32>) {
  // expected-error @+2 {{expected ::ext::AxisKind to be one of: spatial, reduce}}
  // expected-error @+1 {{failed to parse Ext_AxisAttr parameter 'kind'}}
  ext.compute [#ext.axis<"i", parallel, 4>] outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}
