#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<2x3xf64>, memref<f64>) -> (), sym_name = "total_prod"}> ({
  ^bb0(%arg0: memref<2x3xf64>, %arg1: memref<f64>):
    "ext.compute"(%arg0, %arg1) <{axes = [#ext.axis<"r", reduce, 2>, #ext.axis<"s", reduce, 3>], combiner = 1 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg2: f64):
      "ext.yield"(%arg2) : (f64) -> ()
    }, {
    })  : (memref<2x3xf64>, memref<f64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

