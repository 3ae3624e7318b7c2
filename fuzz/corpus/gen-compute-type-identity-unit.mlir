#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<4x16xf32>, memref<4xf32>, memref<4xi32>) -> (), sym_name = "argmax"}> ({
  ^bb0(%arg0: memref<4x16xf32>, %arg1: memref<4xf32>, %arg2: memref<4xi32>):
    "ext.compute"(%arg0, %arg1, %arg2) <{axes = [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 16>], combiner = 4 : i32, identity = unit, indexing_maps = [#map, #map1, #map1], operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg7: f32):
      %3 = "ext.index"() <{axis = "k"}> : () -> index
      %4 = "arith.index_cast"(%3) : (index) -> i32
      "ext.yield"(%arg7, %4) : (f32, i32) -> ()
    }, {
    ^bb0(%arg3: f32, %arg4: i32, %arg5: f32, %arg6: i32):
      %0 = "arith.cmpf"(%arg5, %arg3) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
      %1 = "arith.select"(%0, %arg5, %arg3) : (i1, f32, f32) -> f32
      %2 = "arith.select"(%0, %arg6, %arg4) : (i1, i32, i32) -> i32
      "ext.yield"(%1, %2) : (f32, i32) -> ()
    }) : (memref<4x16xf32>, memref<4xf32>, memref<4xi32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

