#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<16x8xi32>, memref<8xi32>) -> (), sym_name = "column_sum"}> ({
  ^bb0(%arg0: memref<16x8xi32>, %arg1: memref<8xi32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 64 : i64, tiles = array<i64: 2>}> ({
    ^bb0(%arg3: index, %arg4: index, %arg5: index):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 4 : index}> : () -> index
      %2 = "arith.muli"(%arg3, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %3 = "arith.constant"() <{value = 16 : index}> : () -> index
      %4 = "arith.constant"() <{value = 4 : index}> : () -> index
      %5 = "arith.constant"() <{value = 0 : index}> : () -> index
      %6 = "arith.addi"(%5, %0) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %7 = "arith.constant"() <{value = 0 : index}> : () -> index
      %8 = "arith.addi"(%7, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %9 = "memref.subview"(%arg0, %6, %8) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 16, 4>, static_strides = array<i64: 1, 1>}> : (memref<16x8xi32>, index, index) -> memref<16x4xi32, strided<[8, 1], offset: ?>>
      %10 = "memref.subview"(%arg1, %2) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 4>, static_strides = array<i64: 1>}> : (memref<8xi32>, index) -> memref<4xi32, strided<[1], offset: ?>>
      "ext.tile_compute"(%3, %4, %9, %10) <{axes = [#ext.axis<"r", reduce, 16>, #ext.axis<"j", spatial, 4>], combiner = 0 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 16, 4>}> ({
      ^bb0(%arg6: i32):
        "ext.yield"(%arg6) : (i32) -> ()
      }, {
      }) : (index, index, memref<16x4xi32, strided<[8, 1], offset: ?>>, memref<4xi32, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg2: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

