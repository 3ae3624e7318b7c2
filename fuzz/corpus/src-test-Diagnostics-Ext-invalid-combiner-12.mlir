func.func @reducer_two_blocks(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{reducer must have exactly one block}}
  "ext.compute"(%X, %Y) <{axes = [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>], combiner = 4 : i32, identity = [0.0 : f32], indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    "ext.yield"(%x) : (f32) -> ()
  }, {
  ^bb0(%a: f32, %b: f32):
    cf.br ^bb1
  ^bb1:
    "ext.yield"(%a) : (f32) -> ()
  }) : (memref<4x8xf32>, memref<4xf32>) -> ()
  return
}
