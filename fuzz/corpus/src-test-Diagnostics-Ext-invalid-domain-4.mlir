func.func @no_outputs(%X: memref<4xf32>) {
  // expected-error @+1 {{needs at least one output}}
  "ext.compute"(%X) <{axes = [#ext.axis<"i", spatial, 4>], indexing_maps = [affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%x: f32):
    "ext.yield"() : () -> ()
  }, {}) : (memref<4xf32>) -> ()
  return
}
