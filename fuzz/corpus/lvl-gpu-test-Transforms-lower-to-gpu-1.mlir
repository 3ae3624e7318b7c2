#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<64x1000xf32>, memref<64xf32>) -> (), sym_name = "row_sum"}> ({
  ^bb0(%arg0: memref<64x1000xf32>, %arg1: memref<64xf32>):
    %0 = "arith.constant"() <{value = 1 : index}> : () -> index
    %1 = "arith.constant"() <{value = 64 : index}> : () -> index
    %2 = "arith.constant"() <{value = 256 : index}> : () -> index
    "gpu.launch"(%1, %0, %0, %2, %0, %0) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index):
      %3 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %4 = "arith.constant"() <{value = 0 : index}> : () -> index
      %5 = "arith.constant"() <{value = 1 : index}> : () -> index
      %6 = "arith.constant"() <{value = 0 : index}> : () -> index
      %7 = "arith.constant"() <{value = 1 : index}> : () -> index
      %8 = "arith.muli"(%3, %7) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %9 = "arith.constant"() <{value = 1 : index}> : () -> index
      %10 = "arith.constant"() <{value = 1000 : index}> : () -> index
      %11 = "arith.constant"() <{value = 0 : index}> : () -> index
      %12 = "arith.addi"(%11, %8) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %13 = "arith.constant"() <{value = 0 : index}> : () -> index
      %14 = "arith.addi"(%13, %6) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %15 = "memref.subview"(%arg0, %12, %14) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 1000>, static_strides = array<i64: 1, 1>}> : (memref<64x1000xf32>, index, index) -> memref<1x1000xf32, strided<[1000, 1], offset: ?>>
      %16 = "memref.subview"(%arg1, %8) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<64xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%9, %10, %15, %16) <{axes = [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>], combiner = 0 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 1, 256>}> ({
      ^bb0(%arg14: f32):
        "ext.yield"(%arg14) : (f32) -> ()
      }, {
      }) : (index, index, memref<1x1000xf32, strided<[1000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

