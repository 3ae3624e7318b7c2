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
  "func.func"() <{function_type = (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> (), sym_name = "gemm_f16"}> ({
  ^bb0(%arg7: memref<200x100xf16>, %arg8: memref<100x130xf16>, %arg9: memref<200x130xf32>):
    %21 = "arith.constant"() <{value = 1 : index}> : () -> index
    %22 = "arith.constant"() <{value = 12 : index}> : () -> index
    %23 = "arith.constant"() <{value = 256 : index}> : () -> index
    "gpu.launch"(%22, %21, %21, %23, %21, %21) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg10: index, %arg11: index, %arg12: index, %arg13: index, %arg14: index, %arg15: index, %arg16: index, %arg17: index, %arg18: index, %arg19: index, %arg20: index, %arg21: index):
      %24 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %25 = "arith.constant"() <{value = 0 : index}> : () -> index
      %26 = "arith.constant"() <{value = 4 : index}> : () -> index
      %27 = "arith.constant"() <{value = 12 : index}> : () -> index
      %28 = "arith.remui"(%24, %27) : (index, index) -> index
      %29 = "arith.divui"(%24, %27) : (index, index) -> index
      %30 = "arith.constant"() <{value = 3 : index}> : () -> index
      %31 = "arith.divui"(%28, %30) : (index, index) -> index
      %32 = "arith.constant"() <{value = 3 : index}> : () -> index
      %33 = "arith.remui"(%28, %32) : (index, index) -> index
      %34 = "arith.constant"() <{value = 0 : index}> : () -> index
      %35 = "arith.constant"() <{value = 64 : index}> : () -> index
      %36 = "arith.muli"(%31, %35) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %37 = "arith.constant"() <{value = 64 : index}> : () -> index
      %38 = "arith.muli"(%33, %37) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %39 = "arith.constant"() <{value = 200 : index}> : () -> index
      %40 = "arith.subi"(%39, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %41 = "arith.constant"() <{value = 64 : index}> : () -> index
      %42 = "arith.minsi"(%41, %40) : (index, index) -> index
      %43 = "arith.constant"() <{value = 130 : index}> : () -> index
      %44 = "arith.subi"(%43, %38) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %45 = "arith.constant"() <{value = 64 : index}> : () -> index
      %46 = "arith.minsi"(%45, %44) : (index, index) -> index
      %47 = "arith.constant"() <{value = 100 : index}> : () -> index
      %48 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 64, offset = 34>]}> : () -> memref<64x32xf16, strided<[34, 1]>, #gpu.address_space<workgroup>>
      %49 = "ext.alloc_shared"() : () -> memref<32x64xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
      %50 = "ext.alloc_fragment"() <{threads = array<i64: 16, 16>}> : () -> memref<64x64xf32>
      "ext.tile_compute"(%50) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 16, 16>}> ({
        %91 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%91) : (f32) -> ()
      }, {
      }) : (memref<64x64xf32>) -> ()
      %51 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%25, %26, %51) ({
      ^bb0(%arg23: index):
        %74 = "arith.constant"() <{value = 32 : index}> : () -> index
        %75 = "arith.muli"(%arg23, %74) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %76 = "arith.constant"() <{value = 100 : index}> : () -> index
        %77 = "arith.subi"(%76, %75) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %78 = "arith.constant"() <{value = 32 : index}> : () -> index
        %79 = "arith.minsi"(%78, %77) : (index, index) -> index
        %80 = "arith.constant"() <{value = 0 : index}> : () -> index
        %81 = "arith.addi"(%80, %36) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %82 = "arith.constant"() <{value = 0 : index}> : () -> index
        %83 = "arith.addi"(%82, %75) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg7, %81, %83, %48) <{vector = 1 : i64}> : (memref<200x100xf16>, index, index, memref<64x32xf16, strided<[34, 1]>, #gpu.address_space<workgroup>>) -> ()
        %84 = "arith.constant"() <{value = 0 : index}> : () -> index
        %85 = "arith.addi"(%84, %75) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %86 = "arith.constant"() <{value = 0 : index}> : () -> index
        %87 = "arith.addi"(%86, %38) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg8, %85, %87, %49) <{vector = 1 : i64}> : (memref<100x130xf16>, index, index, memref<32x64xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%42, %46, %79, %48, %49, %50) <{accumulate, axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 16, 16, 1>}> ({
        ^bb0(%arg24: f16, %arg25: f16):
          %88 = "arith.extf"(%arg24) : (f16) -> f32
          %89 = "arith.extf"(%arg25) : (f16) -> f32
          %90 = "arith.mulf"(%88, %89) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%90) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<64x32xf16, strided<[34, 1]>, #gpu.address_space<workgroup>>, memref<32x64xf16, strided<[64, 1]>, #gpu.address_space<workgroup>>, memref<64x64xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      %52 = "arith.constant"() <{value = 12 : index}> : () -> index
      %53 = "arith.remui"(%24, %52) : (index, index) -> index
      %54 = "arith.divui"(%24, %52) : (index, index) -> index
      %55 = "arith.constant"() <{value = 3 : index}> : () -> index
      %56 = "arith.divui"(%53, %55) : (index, index) -> index
      %57 = "arith.constant"() <{value = 3 : index}> : () -> index
      %58 = "arith.remui"(%53, %57) : (index, index) -> index
      %59 = "arith.constant"() <{value = 0 : index}> : () -> index
      %60 = "arith.constant"() <{value = 64 : index}> : () -> index
      %61 = "arith.muli"(%56, %60) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %62 = "arith.constant"() <{value = 64 : index}> : () -> index
      %63 = "arith.muli"(%58, %62) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %64 = "arith.constant"() <{value = 200 : index}> : () -> index
      %65 = "arith.subi"(%64, %61) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %66 = "arith.constant"() <{value = 64 : index}> : () -> index
      %67 = "arith.minsi"(%66, %65) : (index, index) -> index
      %68 = "arith.constant"() <{value = 130 : index}> : () -> index
      %69 = "arith.subi"(%68, %63) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %70 = "arith.constant"() <{value = 64 : index}> : () -> index
      %71 = "arith.minsi"(%70, %69) : (index, index) -> index
      %72 = "arith.constant"() <{value = 100 : index}> : () -> index
      %73 = "memref.subview"(%arg9, %61, %63) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 64, 64>, static_strides = array<i64: 1, 1>}> : (memref<200x130xf32>, index, index) -> memref<64x64xf32, strided<[130, 1], offset: ?>>
      "ext.tile_compute"(%67, %71, %50, %73) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 16, 16>}> ({
      ^bb0(%arg22: f32):
        "ext.yield"(%arg22) : (f32) -> ()
      }, {
      }) : (index, index, memref<64x64xf32>, memref<64x64xf32, strided<[130, 1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> (), sym_name = "reference"}> ({
  ^bb0(%arg2: memref<200x100xf16>, %arg3: memref<100x130xf16>, %arg4: memref<200x130xf32>):
    "ext.compute"(%arg2, %arg3, %arg4) <{axes = [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: f16, %arg6: f16):
      %18 = "arith.extf"(%arg5) : (f16) -> f32
      %19 = "arith.extf"(%arg6) : (f16) -> f32
      %20 = "arith.mulf"(%18, %19) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "ext.yield"(%20) : (f32) -> ()
    }, {
    }) : (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x100xf16>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<100x130xf16>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x130xf32>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<200x130xf32>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<f32>
    "ext.compute"(%0) <{axes = [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 100>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %13 = "ext.index"() <{axis = "i"}> : () -> index
      %14 = "ext.index"() <{axis = "k"}> : () -> index
      %15 = "affine.apply"(%13, %14) <{map = #map4}> : (index, index) -> index
      %16 = "arith.index_cast"(%15) : (index) -> i32
      %17 = "arith.sitofp"(%16) : (i32) -> f16
      "ext.yield"(%17) : (f16) -> ()
    }, {
    }) : (memref<200x100xf16>) -> ()
    "ext.compute"(%1) <{axes = [#ext.axis<"k", spatial, 100>, #ext.axis<"j", spatial, 130>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 1>}> ({
      %8 = "ext.index"() <{axis = "k"}> : () -> index
      %9 = "ext.index"() <{axis = "j"}> : () -> index
      %10 = "affine.apply"(%8, %9) <{map = #map5}> : (index, index) -> index
      %11 = "arith.index_cast"(%10) : (index) -> i32
      %12 = "arith.sitofp"(%11) : (i32) -> f16
      "ext.yield"(%12) : (f16) -> ()
    }, {
    }) : (memref<100x130xf16>) -> ()
    "func.call"(%0, %1, %2) <{callee = @gemm_f16}> : (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> ()
    "func.call"(%0, %1, %3) <{callee = @reference}> : (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> ()
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

