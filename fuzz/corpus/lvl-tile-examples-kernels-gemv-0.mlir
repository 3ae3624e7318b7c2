#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> ((d0 * 5 + d1 * 3) mod 9 - 4)>
#map4 = affine_map<(d0) -> (d0 mod 7 - 3)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0) -> ()>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<*xf32>) -> (), sym_name = "printMemrefF32", sym_visibility = "private"}> ({
  }) {llvm.emit_c_interface} : () -> ()
  "func.func"() <{function_type = (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> (), sym_name = "gemv"}> ({
  ^bb0(%arg7: memref<300x517xf32>, %arg8: memref<517xf32>, %arg9: memref<300xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 256 : i64, tiles = array<i64: 75>}> ({
    ^bb0(%arg11: index, %arg12: index, %arg13: index):
      %18 = "arith.constant"() <{value = 0 : index}> : () -> index
      %19 = "arith.constant"() <{value = 4 : index}> : () -> index
      %20 = "arith.muli"(%arg11, %19) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %21 = "arith.constant"() <{value = 4 : index}> : () -> index
      %22 = "arith.constant"() <{value = 517 : index}> : () -> index
      %23 = "arith.constant"() <{value = 0 : index}> : () -> index
      %24 = "arith.addi"(%23, %20) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %25 = "arith.constant"() <{value = 0 : index}> : () -> index
      %26 = "arith.addi"(%25, %18) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %27 = "memref.subview"(%arg7, %24, %26) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 4, 517>, static_strides = array<i64: 1, 1>}> : (memref<300x517xf32>, index, index) -> memref<4x517xf32, strided<[517, 1], offset: ?>>
      %28 = "arith.constant"() <{value = 0 : index}> : () -> index
      %29 = "arith.addi"(%28, %18) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %30 = "memref.subview"(%arg8, %29) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 517>, static_strides = array<i64: 1>}> : (memref<517xf32>, index) -> memref<517xf32, strided<[1], offset: ?>>
      %31 = "memref.subview"(%arg9, %20) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 4>, static_strides = array<i64: 1>}> : (memref<300xf32>, index) -> memref<4xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%21, %22, %27, %30, %31) <{axes = [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 517>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 2, 1>, threads = array<i64: 4, 64>}> ({
      ^bb0(%arg14: f32, %arg15: f32):
        %32 = "arith.mulf"(%arg14, %arg15) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "ext.yield"(%32) : (f32) -> ()
      }, {
      }) : (index, index, memref<4x517xf32, strided<[517, 1], offset: ?>>, memref<517xf32, strided<[1], offset: ?>>, memref<4xf32, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg10: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> (), sym_name = "reference"}> ({
  ^bb0(%arg2: memref<300x517xf32>, %arg3: memref<517xf32>, %arg4: memref<300xf32>):
    "ext.compute"(%arg2, %arg3, %arg4) <{axes = [#ext.axis<"i", spatial, 300>, #ext.axis<"k", reduce, 517>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: f32, %arg6: f32):
      %17 = "arith.mulf"(%arg5, %arg6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%17) : (f32) -> ()
    }, {
    }) : (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<300x517xf32>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<517xf32>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<300xf32>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<300xf32>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<f32>
    "ext.compute"(%0) <{axes = [#ext.axis<"i", spatial, 300>, #ext.axis<"k", spatial, 517>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %12 = "ext.index"() <{axis = "i"}> : () -> index
      %13 = "ext.index"() <{axis = "k"}> : () -> index
      %14 = "affine.apply"(%12, %13) <{map = #map3}> : (index, index) -> index
      %15 = "arith.index_cast"(%14) : (index) -> i32
      %16 = "arith.sitofp"(%15) : (i32) -> f32
      "ext.yield"(%16) : (f32) -> ()
    }, {
    }) : (memref<300x517xf32>) -> ()
    "ext.compute"(%1) <{axes = [#ext.axis<"k", spatial, 517>], indexing_maps = [#map5], operandSegmentSizes = array<i32: 0, 1>}> ({
      %8 = "ext.index"() <{axis = "k"}> : () -> index
      %9 = "affine.apply"(%8) <{map = #map4}> : (index) -> index
      %10 = "arith.index_cast"(%9) : (index) -> i32
      %11 = "arith.sitofp"(%10) : (i32) -> f32
      "ext.yield"(%11) : (f32) -> ()
    }, {
    }) : (memref<517xf32>) -> ()
    "func.call"(%0, %1, %2) <{callee = @gemv}> : (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> ()
    "func.call"(%0, %1, %3) <{callee = @reference}> : (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> ()
    "ext.compute"(%2, %3, %4) <{axes = [#ext.axis<"i", reduce, 300>], combiner = 2 : i32, indexing_maps = [#map5, #map5, #map6], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg0: f32, %arg1: f32):
      %6 = "arith.subf"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %7 = "math.absf"(%6) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "ext.yield"(%7) : (f32) -> ()
    }, {
    }) : (memref<300xf32>, memref<300xf32>, memref<f32>) -> ()
    %5 = "memref.cast"(%4) : (memref<f32>) -> memref<*xf32>
    "func.call"(%5) <{callee = @printMemrefF32}> : (memref<*xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

