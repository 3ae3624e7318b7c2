#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<10xindex>) -> (), sym_name = "iota"}> ({
  ^bb0(%arg0: memref<10xindex>):
    "ext.compute"(%arg0) <{axes = [#ext.axis<"i", spatial, 10>], indexing_maps = unit, operandSegmentSizes = array<i32: 0, 1>}> ({
      %0 = "ext.index"() <{axis = "i"}> : () -> index
      "ext.yield"(%0) : (index) -> ()
    }, {
    }) : (memref<10xindex>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

