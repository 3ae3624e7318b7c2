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
    %18 = "arith.constant"() <{value = 1 : index}> : () -> index
    %19 = "arith.constant"() <{value = 75 : index}> : () -> index
    %20 = "arith.constant"() <{value = 256 : index}> : () -> index
    "gpu.launch"(%19, %18, %18, %20, %18, %18) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg10: index, %arg11: index, %arg12: index, %arg13: index, %arg14: index, %arg15: index, %arg16: index, %arg17: index, %arg18: index, %arg19: index, %arg20: index, %arg21: index):
      %21 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %22 = "arith.constant"() <{value = 0 : index}> : () -> index
      %23 = "arith.constant"() <{value = 1 : index}> : () -> index
      %24 = "arith.constant"() <{value = 0 : index}> : () -> index
      %25 = "arith.constant"() <{value = 4 : index}> : () -> index
      %26 = "arith.muli"(%21, %25) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %27 = "arith.constant"() <{value = 4 : index}> : () -> index
      %28 = "arith.constant"() <{value = 517 : index}> : () -> index
      %29 = "arith.constant"() <{value = 0 : index}> : () -> index
      %30 = "arith.addi"(%29, %26) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %31 = "arith.constant"() <{value = 0 : index}> : () -> index
      %32 = "arith.addi"(%31, %24) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %33 = "memref.subview"(%arg7, %30, %32) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 4, 517>, static_strides = array<i64: 1, 1>}> : (memref<300x517xf32>, index, index) -> memref<4x517xf32, strided<[517, 1], offset: ?>>
      %34 = "arith.constant"() <{value = 0 : index}> : () -> index
      %35 = "arith.addi"(%34, %24) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %36 = "memref.subview"(%arg8, %35) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 517>, static_strides = array<i64: 1>}> : (memref<517xf32>, index) -> memref<517xf32, strided<[1], offset: ?>>
      %37 = "memref.subview"(%arg9, %26) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 4>, static_strides = array<i64: 1>}> : (memref<300xf32>, index) -> memref<4xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%27, %28, %33, %36, %37) <{axes = [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 517>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 2, 1>, threads = array<i64: 4, 64>}> ({
      ^bb0(%arg22: f32, %arg23: f32):
        %38 = "arith.mulf"(%arg22, %arg23) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "ext.yield"(%38) : (f32) -> ()
      }, {
      }) : (index, index, memref<4x517xf32, strided<[517, 1], offset: ?>>, memref<517xf32, strided<[1], offset: ?>>, memref<4xf32, strided<[1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
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

