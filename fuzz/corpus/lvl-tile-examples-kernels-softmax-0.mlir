#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 17)>
#map3 = affine_map<(d0, d1) -> ()>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<*xf32>) -> (), sym_name = "printMemrefF32", sym_visibility = "private"}> ({
  }) {llvm.emit_c_interface} : () -> ()
  "func.func"() <{function_type = (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> (), sym_name = "softmax"}> ({
  ^bb0(%arg13: memref<37x1000xf32>, %arg14: memref<37xf32>, %arg15: memref<37xf32>, %arg16: memref<37x1000xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 256 : i64, tiles = array<i64: 37>}> ({
    ^bb0(%arg33: index, %arg34: index, %arg35: index):
      %73 = "arith.constant"() <{value = 0 : index}> : () -> index
      %74 = "arith.constant"() <{value = 1 : index}> : () -> index
      %75 = "arith.muli"(%arg33, %74) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %76 = "arith.constant"() <{value = 1 : index}> : () -> index
      %77 = "arith.constant"() <{value = 1000 : index}> : () -> index
      %78 = "arith.constant"() <{value = 0 : index}> : () -> index
      %79 = "arith.addi"(%78, %75) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %80 = "arith.constant"() <{value = 0 : index}> : () -> index
      %81 = "arith.addi"(%80, %73) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %82 = "memref.subview"(%arg13, %79, %81) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 1000>, static_strides = array<i64: 1, 1>}> : (memref<37x1000xf32>, index, index) -> memref<1x1000xf32, strided<[1000, 1], offset: ?>>
      %83 = "memref.subview"(%arg14, %75) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<37xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%76, %77, %82, %83) <{axes = [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>], combiner = 2 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 1, 256>}> ({
      ^bb0(%arg36: f32):
        "ext.yield"(%arg36) : (f32) -> ()
      }, {
      }) : (index, index, memref<1x1000xf32, strided<[1000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg32: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 256 : i64, tiles = array<i64: 37>}> ({
    ^bb0(%arg27: index, %arg28: index, %arg29: index):
      %57 = "arith.constant"() <{value = 0 : index}> : () -> index
      %58 = "arith.constant"() <{value = 1 : index}> : () -> index
      %59 = "arith.muli"(%arg27, %58) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %60 = "arith.constant"() <{value = 1 : index}> : () -> index
      %61 = "arith.constant"() <{value = 1000 : index}> : () -> index
      %62 = "arith.constant"() <{value = 0 : index}> : () -> index
      %63 = "arith.addi"(%62, %59) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %64 = "arith.constant"() <{value = 0 : index}> : () -> index
      %65 = "arith.addi"(%64, %57) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %66 = "memref.subview"(%arg13, %63, %65) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 1000>, static_strides = array<i64: 1, 1>}> : (memref<37x1000xf32>, index, index) -> memref<1x1000xf32, strided<[1000, 1], offset: ?>>
      %67 = "arith.constant"() <{value = 0 : index}> : () -> index
      %68 = "arith.addi"(%67, %59) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %69 = "memref.subview"(%arg14, %68) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<37xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      %70 = "memref.subview"(%arg15, %59) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<37xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      "ext.tile_compute"(%60, %61, %66, %69, %70) <{axes = [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map1], operandSegmentSizes = array<i32: 2, 2, 1>, threads = array<i64: 1, 256>}> ({
      ^bb0(%arg30: f32, %arg31: f32):
        %71 = "arith.subf"(%arg30, %arg31) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %72 = "math.exp"(%71) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        "ext.yield"(%72) : (f32) -> ()
      }, {
      }) : (index, index, memref<1x1000xf32, strided<[1000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg26: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 256 : i64, tiles = array<i64: 37, 4>}> ({
    ^bb0(%arg19: index, %arg20: index, %arg21: index, %arg22: index):
      %32 = "arith.constant"() <{value = 0 : index}> : () -> index
      %33 = "arith.constant"() <{value = 1 : index}> : () -> index
      %34 = "arith.muli"(%arg19, %33) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %35 = "arith.constant"() <{value = 256 : index}> : () -> index
      %36 = "arith.muli"(%arg20, %35) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %37 = "arith.constant"() <{value = 1 : index}> : () -> index
      %38 = "arith.constant"() <{value = 1000 : index}> : () -> index
      %39 = "arith.subi"(%38, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %40 = "arith.constant"() <{value = 256 : index}> : () -> index
      %41 = "arith.minsi"(%40, %39) : (index, index) -> index
      %42 = "arith.constant"() <{value = 0 : index}> : () -> index
      %43 = "arith.addi"(%42, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %44 = "arith.constant"() <{value = 0 : index}> : () -> index
      %45 = "arith.addi"(%44, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %46 = "memref.subview"(%arg13, %43, %45) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 256>, static_strides = array<i64: 1, 1>}> : (memref<37x1000xf32>, index, index) -> memref<1x256xf32, strided<[1000, 1], offset: ?>>
      %47 = "arith.constant"() <{value = 0 : index}> : () -> index
      %48 = "arith.addi"(%47, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %49 = "memref.subview"(%arg14, %48) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<37xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      %50 = "arith.constant"() <{value = 0 : index}> : () -> index
      %51 = "arith.addi"(%50, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %52 = "memref.subview"(%arg15, %51) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>}> : (memref<37xf32>, index) -> memref<1xf32, strided<[1], offset: ?>>
      %53 = "memref.subview"(%arg16, %34, %36) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 1, 256>, static_strides = array<i64: 1, 1>}> : (memref<37x1000xf32>, index, index) -> memref<1x256xf32, strided<[1000, 1], offset: ?>>
      "ext.tile_compute"(%37, %41, %46, %49, %52, %53) <{axes = [#ext.axis<"i", spatial, 1>, #ext.axis<"k", spatial, 256>], indexing_maps = [#map, #map1, #map1, #map], operandSegmentSizes = array<i32: 2, 3, 1>, threads = array<i64: 1, 256>}> ({
      ^bb0(%arg23: f32, %arg24: f32, %arg25: f32):
        %54 = "arith.subf"(%arg23, %arg24) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %55 = "math.exp"(%54) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %56 = "arith.divf"(%55, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "ext.yield"(%56) : (f32) -> ()
      }, {
      }) : (index, index, memref<1x256xf32, strided<[1000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>, memref<1x256xf32, strided<[1000, 1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg17: index, %arg18: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> (), sym_name = "reference"}> ({
  ^bb0(%arg3: memref<37x1000xf32>, %arg4: memref<37xf32>, %arg5: memref<37xf32>, %arg6: memref<37x1000xf32>):
    "ext.compute"(%arg3, %arg4) <{axes = [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>], combiner = 2 : i32, indexing_maps = [#map, #map1], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg12: f32):
      "ext.yield"(%arg12) : (f32) -> ()
    }, {
    }) : (memref<37x1000xf32>, memref<37xf32>) -> ()
    "ext.compute"(%arg3, %arg4, %arg5) <{axes = [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>], combiner = 0 : i32, indexing_maps = [#map, #map1, #map1], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg10: f32, %arg11: f32):
      %30 = "arith.subf"(%arg10, %arg11) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %31 = "math.exp"(%30) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "ext.yield"(%31) : (f32) -> ()
    }, {
    }) : (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>) -> ()
    "ext.compute"(%arg3, %arg4, %arg5, %arg6) <{axes = [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 1000>], indexing_maps = [#map, #map1, #map1, #map], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg7: f32, %arg8: f32, %arg9: f32):
      %27 = "arith.subf"(%arg7, %arg8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %28 = "math.exp"(%27) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %29 = "arith.divf"(%28, %arg9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%29) : (f32) -> ()
    }, {
    }) : (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37x1000xf32>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37xf32>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37xf32>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37x1000xf32>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37xf32>
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37xf32>
    %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<37x1000xf32>
    %7 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<f32>
    %8 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1xf32>
    "ext.compute"(%0) <{axes = [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 1000>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %18 = "ext.index"() <{axis = "i"}> : () -> index
      %19 = "ext.index"() <{axis = "k"}> : () -> index
      %20 = "affine.apply"(%18, %19) <{map = #map2}> : (index, index) -> index
      %21 = "arith.index_cast"(%20) : (index) -> i32
      %22 = "arith.sitofp"(%21) : (i32) -> f32
      %23 = "arith.constant"() <{value = 2.500000e-01 : f32}> : () -> f32
      %24 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
      %25 = "arith.mulf"(%22, %23) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %26 = "arith.subf"(%25, %24) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%26) : (f32) -> ()
    }, {
    }) : (memref<37x1000xf32>) -> ()
    "func.call"(%0, %1, %2, %3) <{callee = @softmax}> : (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> ()
    "func.call"(%0, %4, %5, %6) <{callee = @reference}> : (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> ()
    "ext.compute"(%3, %6, %7) <{axes = [#ext.axis<"i", reduce, 37>, #ext.axis<"k", reduce, 1000>], combiner = 2 : i32, indexing_maps = [#map, #map, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg1: f32, %arg2: f32):
      %16 = "arith.subf"(%arg1, %arg2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %17 = "math.absf"(%16) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "ext.yield"(%17) : (f32) -> ()
    }, {
    }) : (memref<37x1000xf32>, memref<37x1000xf32>, memref<f32>) -> ()
    "ext.compute"(%7, %8) <{axes = [#ext.axis<"o", spatial, 1>], indexing_maps = [#map4, #map5], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg0: f32):
      %11 = "arith.constant"() <{value = 9.99999997E-7 : f32}> : () -> f32
      %12 = "arith.cmpf"(%arg0, %11) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
      %13 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
      %14 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
      %15 = "arith.select"(%12, %13, %14) : (i1, f32, f32) -> f32
      "ext.yield"(%15) : (f32) -> ()
    }, {
    }) : (memref<f32>, memref<1xf32>) -> ()
    %9 = "memref.cast"(%7) : (memref<f32>) -> memref<*xf32>
    %10 = "memref.cast"(%8) : (memref<1xf32>) -> memref<*xf32>
    "func.call"(%9) <{callee = @printMemrefF32}> : (memref<*xf32>) -> ()
    "func.call"(%10) <{callee = @printMemrefF32}> : (memref<*xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

