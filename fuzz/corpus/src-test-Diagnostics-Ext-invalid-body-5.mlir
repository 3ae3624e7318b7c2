func.func @index_unknown_axis(%Y: memref<4xindex>) {
  ext.compute [#ext.axis<"i", spatial, 4>] outs(%Y : memref<4xindex>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    // expected-error @+1 {{'ext.index' op names axis 'j', which the enclosing ext.compute does not have (its axes: i)}}
    %j = ext.index "j" : index
    ext.yield %j : index
  }
  return
}
