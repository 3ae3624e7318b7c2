#map = affine_map<(d0, d1) -> (d0 * 2 + d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<9xf32>, memref<4xf32>) -> (), sym_name = "min_pool"}> ({
  ^bb0(%arg0: memref<9xf32>, %arg1: memref<4xf32>):
    "ext.compute"(%arg0, %arg1) <{axes = [#ext.axis<"o", spatial, 4>, #ext.axis<"w", reduce, 3>], combiner = [#ext.axis<"i", spatial, 0>], indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg2: f32):
      "ext.yield"(%arg2) : (f32) -> ()
    }, {
    }) : (memref<9xf32>, memref<4xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

