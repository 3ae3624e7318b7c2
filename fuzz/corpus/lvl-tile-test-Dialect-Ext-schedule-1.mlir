#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<64x1024xf32>, memref<64xf32>) -> (), sym_name = "row_sum_threads"}> ({
  ^bb0(%arg0: memref<64x1024xf32>, %arg1: memref<64xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 256 : i64, tiles = array<i64: 64>}> ({
    ^bb0(%arg3: index, %arg4: index, %arg5: index):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %2 = "arith.muli"(%arg3, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %3 = "arith.constant"() <{value = 1 : index}> : () -> index
      %4 = "arith.constant"() <{value = 1024 : index}> : () -> index
      %5 = "arith.constant"() <{value = 0 : index}> : () -> index
      %6 = "arith.addi"(%5, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %7 = "arith.constant"() <{value = 0 : index}> : () -> index
      %8 = "arith.addi"(%7, %0) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %9 = "memref.subview"(%arg0, %6, %8) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 1024>, static_strides = array<i64: 1, 1>}> : (memref<64x1024xf32>, index, index) -> memref<1x1024xf32, strided<[1024, 1], offset: ?>>
      %10 = "memref.subview"(%arg1, %2) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<64xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%3, %4, %9, %10) <{axes = [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1024>], combiner = 0 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 1, 256>}> ({
      ^bb0(%arg6: f32):
        "ext.yield"(%arg6) : (f32) -> ()
      }, {
      }) : (index, index, memref<1x1024xf32, strided<[1024, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg2: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

