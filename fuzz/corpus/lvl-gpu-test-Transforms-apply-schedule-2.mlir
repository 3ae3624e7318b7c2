#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100xindex>) -> (), sym_name = "iota"}> ({
  ^bb0(%arg0: memref<100xindex>):
    %0 = "arith.constant"() <{value = 1 : index}> : () -> index
    %1 = "arith.constant"() <{value = 4 : index}> : () -> index
    %2 = "arith.constant"() <{value = 32 : index}> : () -> index
    "gpu.launch"(%1, %0, %0, %2, %0, %0) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
      %3 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %4 = "arith.constant"() <{value = 0 : index}> : () -> index
      %5 = "arith.constant"() <{value = 1 : index}> : () -> index
      %6 = "arith.constant"() <{value = 0 : index}> : () -> index
      %7 = "arith.constant"() <{value = 32 : index}> : () -> index
      %8 = "arith.muli"(%3, %7) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %9 = "arith.constant"() <{value = 100 : index}> : () -> index
      %10 = "arith.subi"(%9, %8) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %11 = "arith.constant"() <{value = 32 : index}> : () -> index
      %12 = "arith.minsi"(%11, %10) : (index, index) -> index
      %13 = "memref.subview"(%arg0, %8) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 32>, static_strides = array<i64: 1>}> : (memref<100xindex>, index) -> memref<32xindex, strided<[1], offset: ?>>
      "ext.tile_compute"(%12, %13) <{axes = [#ext.axis<"i", spatial, 32>], indexing_maps = [#map], operandSegmentSizes = array<i32: 1, 0, 1>, threads = array<i64: 32>}> ({
        %14 = "ext.index"() <{axis = "i"}> : () -> index
        %15 = "arith.addi"(%14, %8) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.yield"(%15) : (index) -> ()
      }, {
      }) : (index, memref<32xindex, strided<[1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

