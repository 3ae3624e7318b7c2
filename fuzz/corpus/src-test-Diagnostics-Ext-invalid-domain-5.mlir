func.func @non_memref_operand(%X: tensor<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{operand #0 must be variadic of memref of any type values}}
  "ext.compute"(%X, %Y) <{axes = [#ext.axis<"i", spatial, 4>], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    "ext.yield"(%x) : (f32) -> ()
  }, {}) : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}
