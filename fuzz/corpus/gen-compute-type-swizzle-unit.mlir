#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100x70xf32>, memref<70x90xf32>, memref<100x90xf32>) -> (), sym_name = "matmul"}> ({
  ^bb0(%arg0: memref<100x70xf32>, %arg1: memref<70x90xf32>, %arg2: memref<100x90xf32>):
    "ext.compute"(%arg0, %arg1, %arg2) <{axes = [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>, schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1], cache = [#ext.cache<operand = 0, align = [<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>], swizzle = unit}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %0 = "arith.mulf"(%arg3, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%0) : (f32) -> ()
    }, {
    }) : (memref<100x70xf32>, memref<70x90xf32>, memref<100x90xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

