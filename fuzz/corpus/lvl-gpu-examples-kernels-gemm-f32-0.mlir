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
    %19 = "arith.constant"() <{value = 1 : index}> : () -> index
    %20 = "arith.constant"() <{value = 12 : index}> : () -> index
    %21 = "arith.constant"() <{value = 256 : index}> : () -> index
    "gpu.launch"(%20, %19, %19, %21, %19, %19) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg10: index, %arg11: index, %arg12: index, %arg13: index, %arg14: index, %arg15: index, %arg16: index, %arg17: index, %arg18: index, %arg19: index, %arg20: index, %arg21: index):
      %22 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %23 = "arith.constant"() <{value = 0 : index}> : () -> index
      %24 = "arith.constant"() <{value = 7 : index}> : () -> index
      %25 = "arith.constant"() <{value = 12 : index}> : () -> index
      %26 = "arith.remui"(%22, %25) : (index, index) -> index
      %27 = "arith.divui"(%22, %25) : (index, index) -> index
      %28 = "arith.constant"() <{value = 6 : index}> : () -> index
      %29 = "arith.divui"(%26, %28) : (index, index) -> index
      %30 = "arith.constant"() <{value = 2 : index}> : () -> index
      %31 = "arith.muli"(%29, %30) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %32 = "arith.constant"() <{value = 4 : index}> : () -> index
      %33 = "arith.subi"(%32, %31) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %34 = "arith.constant"() <{value = 2 : index}> : () -> index
      %35 = "arith.minui"(%33, %34) : (index, index) -> index
      %36 = "arith.remui"(%26, %28) : (index, index) -> index
      %37 = "arith.remui"(%36, %35) : (index, index) -> index
      %38 = "arith.addi"(%31, %37) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %39 = "arith.divui"(%36, %35) : (index, index) -> index
      %40 = "arith.constant"() <{value = 0 : index}> : () -> index
      %41 = "arith.constant"() <{value = 64 : index}> : () -> index
      %42 = "arith.muli"(%38, %41) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %43 = "arith.constant"() <{value = 64 : index}> : () -> index
      %44 = "arith.muli"(%39, %43) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %45 = "arith.constant"() <{value = 200 : index}> : () -> index
      %46 = "arith.subi"(%45, %42) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %47 = "arith.constant"() <{value = 64 : index}> : () -> index
      %48 = "arith.minsi"(%47, %46) : (index, index) -> index
      %49 = "arith.constant"() <{value = 130 : index}> : () -> index
      %50 = "arith.subi"(%49, %44) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %51 = "arith.constant"() <{value = 64 : index}> : () -> index
      %52 = "arith.minsi"(%51, %50) : (index, index) -> index
      %53 = "arith.constant"() <{value = 100 : index}> : () -> index
      %54 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}> : () -> memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
      %55 = "ext.alloc_shared"() : () -> memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
      %56 = "ext.alloc_fragment"() <{threads = array<i64: 16, 16>}> : () -> memref<64x64xf32>
      "ext.tile_compute"(%56) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 16, 16>}> ({
        %103 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%103) : (f32) -> ()
      }, {
      }) : (memref<64x64xf32>) -> ()
      %57 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%23, %24, %57) ({
      ^bb0(%arg23: index):
        %88 = "arith.constant"() <{value = 16 : index}> : () -> index
        %89 = "arith.muli"(%arg23, %88) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %90 = "arith.constant"() <{value = 100 : index}> : () -> index
        %91 = "arith.subi"(%90, %89) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %92 = "arith.constant"() <{value = 16 : index}> : () -> index
        %93 = "arith.minsi"(%92, %91) : (index, index) -> index
        %94 = "arith.constant"() <{value = 0 : index}> : () -> index
        %95 = "arith.addi"(%94, %42) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %96 = "arith.constant"() <{value = 0 : index}> : () -> index
        %97 = "arith.addi"(%96, %89) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg7, %95, %97, %54) <{vector = 1 : i64}> : (memref<200x100xf32>, index, index, memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>) -> ()
        %98 = "arith.constant"() <{value = 0 : index}> : () -> index
        %99 = "arith.addi"(%98, %89) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %100 = "arith.constant"() <{value = 0 : index}> : () -> index
        %101 = "arith.addi"(%100, %44) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg8, %99, %101, %55) <{vector = 1 : i64}> : (memref<100x130xf32>, index, index, memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%48, %52, %93, %54, %55, %56) <{accumulate, axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 16>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 16, 16, 1>}> ({
        ^bb0(%arg24: f32, %arg25: f32):
          %102 = "arith.mulf"(%arg24, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%102) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<64x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>, memref<16x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>, memref<64x64xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      %58 = "arith.constant"() <{value = 12 : index}> : () -> index
      %59 = "arith.remui"(%22, %58) : (index, index) -> index
      %60 = "arith.divui"(%22, %58) : (index, index) -> index
      %61 = "arith.constant"() <{value = 6 : index}> : () -> index
      %62 = "arith.divui"(%59, %61) : (index, index) -> index
      %63 = "arith.constant"() <{value = 2 : index}> : () -> index
      %64 = "arith.muli"(%62, %63) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %65 = "arith.constant"() <{value = 4 : index}> : () -> index
      %66 = "arith.subi"(%65, %64) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %67 = "arith.constant"() <{value = 2 : index}> : () -> index
      %68 = "arith.minui"(%66, %67) : (index, index) -> index
      %69 = "arith.remui"(%59, %61) : (index, index) -> index
      %70 = "arith.remui"(%69, %68) : (index, index) -> index
      %71 = "arith.addi"(%64, %70) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %72 = "arith.divui"(%69, %68) : (index, index) -> index
      %73 = "arith.constant"() <{value = 0 : index}> : () -> index
      %74 = "arith.constant"() <{value = 64 : index}> : () -> index
      %75 = "arith.muli"(%71, %74) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %76 = "arith.constant"() <{value = 64 : index}> : () -> index
      %77 = "arith.muli"(%72, %76) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %78 = "arith.constant"() <{value = 200 : index}> : () -> index
      %79 = "arith.subi"(%78, %75) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %80 = "arith.constant"() <{value = 64 : index}> : () -> index
      %81 = "arith.minsi"(%80, %79) : (index, index) -> index
      %82 = "arith.constant"() <{value = 130 : index}> : () -> index
      %83 = "arith.subi"(%82, %77) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %84 = "arith.constant"() <{value = 64 : index}> : () -> index
      %85 = "arith.minsi"(%84, %83) : (index, index) -> index
      %86 = "arith.constant"() <{value = 100 : index}> : () -> index
      %87 = "memref.subview"(%arg9, %75, %77) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 64, 64>, static_strides = array<i64: 1, 1>}> : (memref<200x130xf32>, index, index) -> memref<64x64xf32, strided<[130, 1], offset: ?>>
      "ext.tile_compute"(%81, %85, %56, %87) <{axes = [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 16, 16>}> ({
      ^bb0(%arg22: f32):
        "ext.yield"(%arg22) : (f32) -> ()
      }, {
      }) : (index, index, memref<64x64xf32>, memref<64x64xf32, strided<[130, 1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
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

