#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100xindex>) -> (), sym_name = "iota"}> ({
  ^bb0(%arg0: memref<100xindex>):
    "ext.compute"(%arg0) <{axes = [#ext.axis<"i", spatial, 100>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>, schedule = unit}> ({
      %0 = "ext.index"() <{axis = "i"}> : () -> index
      "ext.yield"(%0) : (index) -> ()
    }, {
    }) : (memref<100xindex>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

