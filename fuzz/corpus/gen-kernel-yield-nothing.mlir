#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100xindex>) -> (), sym_name = "iota"}> ({
  ^bb0(%arg0: memref<100xindex>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 32 : i64, tiles = array<i64: 4>}> ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 32 : index}> : () -> index
      %2 = "arith.muli"(%arg2, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %3 = "arith.constant"() <{value = 100 : index}> : () -> index
      %4 = "arith.subi"(%3, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %5 = "arith.constant"() <{value = 32 : index}> : () -> index
      %6 = "arith.minsi"(%5, %4) : (index, index) -> index
      %7 = "memref.subview"(%arg0, %2) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 32>, static_strides = array<i64: 1>}> : (memref<100xindex>, index) -> memref<32xindex, strided<[1], offset: ?>>
      "ext.tile_compute"(%6, %7) <{axes = [#ext.axis<"i", spatial, 32>], indexing_maps = [#map], operandSegmentSizes = array<i32: 1, 0, 1>, threads = array<i64: 32>}> ({
        %8 = "ext.index"() <{axis = "i"}> : () -> index
        %9 = "arith.addi"(%8, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.yield"() : () -> ()
      }, {
      }) : (index, memref<32xindex, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg1: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

