func.func @axes_not_axis_attrs(%Y: memref<4xf32>) {
  // expected-error @+1 {{attribute 'axes' failed to satisfy constraint: array of ext.axis}}
  "ext.compute"(%Y) <{axes = [4 : i64], indexing_maps = [affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0:
    %c = arith.constant 0.0 : f32
    "ext.yield"(%c) : (f32) -> ()
  }, {}) : (memref<4xf32>) -> ()
  return
}
