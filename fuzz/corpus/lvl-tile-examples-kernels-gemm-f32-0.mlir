#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> ((d0 * 3 + d1 * 5) mod 11 - 5)>
#map5 = affine_map<(d0, d1) -> ((d0 * 7 + d1 * 2) mod 13 - 6)>
#map6 = affine_map<(d0, d1) -> ()>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<*xf32>) -> (), sym_name = "printMemrefF32", sym_visibility = "private"}> ({
  }) {llvm.emit_c_interface} : () -> ()
  "func.func"() <{function_type = (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> (), sym_name = "gemm"}> ({
  ^bb0(%arg7: memref<200x100xf32>, %arg8: memref<100x130xf32>, %arg9: memref<200x130xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 7 : i64, raster = 0 : i32, swizzle = 2 : i64, threads = 256 : i64, tiles = array<i64: 4, 3>}> ({
    ^bb0(%arg14: index, %arg15: index, %arg16: index, %arg17: index):
      %34 = "arith.constant"() <{value = 0 : index}> : () -> index
      %35 = "arith.constant"() <{value = 64 : index}> : () -> index
      %36 = "arith.muli"(%arg14, %35) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %37 = "arith.constant"() <{value = 64 : index}> : () -> index
      %38 = "arith.muli"(%arg15, %37) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %39 = "arith.constant"() <{value = 200 : index}> : () -> index
      %40 = "arith.subi"(%39, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %41 = "arith.constant"() <{value = 64 : index}> : () -> index
      %42 = "arith.minsi"(%41, %40) : (index, index) -> index
      %43 = "arith.constant"() <{value = 130 : index}> : () -> index
      %44 = "arith.subi"(%43, %38) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %45 = "arith.constant"() <{value = 64 : index}> : () -> index
      %46 = "arith.minsi"(%45, %44) : (index, index) -> index
      %47 = "arith.constant"() <{value = 100 : index}> : () -> index
      %48 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}> : () -> memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
      %49 = "ext.alloc_shared"() : () -> memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
      %50 = "ext.alloc_fragment"() <{threads = array<i64: 16, 16>}> : () -> memref<64x64xf32>
      "ext.tile_compute"(%50) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 16, 16>}> ({
        %67 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%67) : (f32) -> ()
      }, {
      }) : (memref<64x64xf32>) -> ()
      %51 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%arg16, %arg17, %51) ({
      ^bb0(%arg18: index):
        %52 = "arith.constant"() <{value = 16 : index}> : () -> index
        %53 = "arith.muli"(%arg18, %52) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %54 = "arith.constant"() <{value = 100 : index}> : () -> index
        %55 = "arith.subi"(%54, %53) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %56 = "arith.constant"() <{value = 16 : index}> : () -> index
        %57 = "arith.minsi"(%56, %55) : (index, index) -> index
        %58 = "arith.constant"() <{value = 0 : index}> : () -> index
        %59 = "arith.addi"(%58, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %60 = "arith.constant"() <{value = 0 : index}> : () -> index
        %61 = "arith.addi"(%60, %53) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg7, %59, %61, %48) <{vector = 1 : i64}> : (memref<200x100xf32>, index, index, memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>) -> ()
        %62 = "arith.constant"() <{value = 0 : index}> : () -> index
        %63 = "arith.addi"(%62, %53) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %64 = "arith.constant"() <{value = 0 : index}> : () -> index
        %65 = "arith.addi"(%64, %38) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg8, %63, %65, %49) <{vector = 1 : i64}> : (memref<100x130xf32>, index, index, memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%42, %46, %57, %48, %49, %50) <{accumulate, axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 16>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 16, 16, 1>}> ({
        ^bb0(%arg19: f32, %arg20: f32):
          %66 = "arith.mulf"(%arg19, %arg20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%66) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>, memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>, memref<64x64xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "ext.kernel_yield"(%50) : (memref<64x64xf32>) -> ()
    }, {
    ^bb0(%arg10: index, %arg11: index, %arg12: memref<64x64xf32>):
      %19 = "arith.constant"() <{value = 0 : index}> : () -> index
      %20 = "arith.constant"() <{value = 64 : index}> : () -> index
      %21 = "arith.muli"(%arg10, %20) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %22 = "arith.constant"() <{value = 64 : index}> : () -> index
      %23 = "arith.muli"(%arg11, %22) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %24 = "arith.constant"() <{value = 200 : index}> : () -> index
      %25 = "arith.subi"(%24, %21) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %26 = "arith.constant"() <{value = 64 : index}> : () -> index
      %27 = "arith.minsi"(%26, %25) : (index, index) -> index
      %28 = "arith.constant"() <{value = 130 : index}> : () -> index
      %29 = "arith.subi"(%28, %23) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %30 = "arith.constant"() <{value = 64 : index}> : () -> index
      %31 = "arith.minsi"(%30, %29) : (index, index) -> index
      %32 = "arith.constant"() <{value = 100 : index}> : () -> index
      %33 = "memref.subview"(%arg9, %21, %23) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 64, 64>, static_strides = array<i64: 1, 1>}> : (memref<200x130xf32>, index, index) -> memref<64x64xf32, strided<[130, 1], offset: ?>>
      "ext.tile_compute"(%27, %31, %arg12, %33) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 16, 16>}> ({
      ^bb0(%arg13: f32):
        "ext.yield"(%arg13) : (f32) -> ()
      }, {
      }) : (index, index, memref<64x64xf32>, memref<64x64xf32, strided<[130, 1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> (), sym_name = "reference"}> ({
  ^bb0(%arg2: memref<200x100xf32>, %arg3: memref<100x130xf32>, %arg4: memref<200x130xf32>):
    "ext.compute"(%arg2, %arg3, %arg4) <{axes = [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: f32, %arg6: f32):
      %18 = "arith.mulf"(%arg5, %arg6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%18) : (f32) -> ()
    }, {
    }) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x100xf32>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<100x130xf32>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x130xf32>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x130xf32>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<f32>
    "ext.compute"(%0) <{axes = [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 100>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %13 = "ext.index"() <{axis = "i"}> : () -> index
      %14 = "ext.index"() <{axis = "k"}> : () -> index
      %15 = "affine.apply"(%13, %14) <{map = #map4}> : (index, index) -> index
      %16 = "arith.index_cast"(%15) : (index) -> i32
      %17 = "arith.sitofp"(%16) : (i32) -> f32
      "ext.yield"(%17) : (f32) -> ()
    }, {
    }) : (memref<200x100xf32>) -> ()
    "ext.compute"(%1) <{axes = [#ext.axis<"k", spatial, 100>, #ext.axis<"j", spatial, 130>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %8 = "ext.index"() <{axis = "k"}> : () -> index
      %9 = "ext.index"() <{axis = "j"}> : () -> index
      %10 = "affine.apply"(%8, %9) <{map = #map5}> : (index, index) -> index
      %11 = "arith.index_cast"(%10) : (index) -> i32
      %12 = "arith.sitofp"(%11) : (i32) -> f32
      "ext.yield"(%12) : (f32) -> ()
    }, {
    }) : (memref<100x130xf32>) -> ()
    "func.call"(%0, %1, %2) <{callee = @gemm}> : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
    "func.call"(%0, %1, %3) <{callee = @reference}> : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
    "ext.compute"(%2, %3, %4) <{axes = [#ext.axis<"i", reduce, 200>, #ext.axis<"j", reduce, 130>], combiner = 2 : i32, indexing_maps = [#map, #map, #map6], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg0: f32, %arg1: f32):
      %6 = "arith.subf"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %7 = "math.absf"(%6) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "ext.yield"(%7) : (f32) -> ()
    }, {
    }) : (memref<200x130xf32>, memref<200x130xf32>, memref<f32>) -> ()
    %5 = "memref.cast"(%4) : (memref<f32>) -> memref<*xf32>
    "func.call"(%5) <{callee = @printMemrefF32}> : (memref<*xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

