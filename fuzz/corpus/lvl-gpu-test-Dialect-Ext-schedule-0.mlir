#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100x70xf32>, memref<70x90xf32>, memref<100x90xf32>) -> (), sym_name = "scheduled_matmul"}> ({
  ^bb0(%arg0: memref<100x70xf32>, %arg1: memref<70x90xf32>, %arg2: memref<100x90xf32>):
    %0 = "arith.constant"() <{value = 1 : index}> : () -> index
    %1 = "arith.constant"() <{value = 12 : index}> : () -> index
    %2 = "arith.constant"() <{value = 128 : index}> : () -> index
    "gpu.launch"(%1, %0, %0, %2, %0, %0) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index, %arg14: index):
      %3 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %4 = "arith.constant"() <{value = 0 : index}> : () -> index
      %5 = "arith.constant"() <{value = 5 : index}> : () -> index
      %6 = "arith.constant"() <{value = 12 : index}> : () -> index
      %7 = "arith.remui"(%3, %6) : (index, index) -> index
      %8 = "arith.divui"(%3, %6) : (index, index) -> index
      %9 = "arith.constant"() <{value = 16 : index}> : () -> index
      %10 = "arith.divui"(%7, %9) : (index, index) -> index
      %11 = "arith.constant"() <{value = 4 : index}> : () -> index
      %12 = "arith.muli"(%10, %11) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %13 = "arith.constant"() <{value = 3 : index}> : () -> index
      %14 = "arith.subi"(%13, %12) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %15 = "arith.constant"() <{value = 4 : index}> : () -> index
      %16 = "arith.minui"(%14, %15) : (index, index) -> index
      %17 = "arith.remui"(%7, %9) : (index, index) -> index
      %18 = "arith.remui"(%17, %16) : (index, index) -> index
      %19 = "arith.addi"(%12, %18) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %20 = "arith.divui"(%17, %16) : (index, index) -> index
      %21 = "arith.constant"() <{value = 0 : index}> : () -> index
      %22 = "arith.constant"() <{value = 32 : index}> : () -> index
      %23 = "arith.muli"(%20, %22) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %24 = "arith.constant"() <{value = 32 : index}> : () -> index
      %25 = "arith.muli"(%19, %24) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %26 = "arith.constant"() <{value = 100 : index}> : () -> index
      %27 = "arith.subi"(%26, %23) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %28 = "arith.constant"() <{value = 32 : index}> : () -> index
      %29 = "arith.minsi"(%28, %27) : (index, index) -> index
      %30 = "arith.constant"() <{value = 90 : index}> : () -> index
      %31 = "arith.subi"(%30, %25) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %32 = "arith.constant"() <{value = 32 : index}> : () -> index
      %33 = "arith.minsi"(%32, %31) : (index, index) -> index
      %34 = "arith.constant"() <{value = 70 : index}> : () -> index
      %35 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}> : () -> memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
      %36 = "ext.alloc_shared"() : () -> memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
      %37 = "ext.alloc_fragment"() <{threads = array<i64: 8, 16>}> : () -> memref<32x32xf32>
      "ext.tile_compute"(%37) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 8, 16>}> ({
        %84 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%84) : (f32) -> ()
      }, {
      }) : (memref<32x32xf32>) -> ()
      %38 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%4, %5, %38) ({
      ^bb0(%arg16: index):
        %69 = "arith.constant"() <{value = 16 : index}> : () -> index
        %70 = "arith.muli"(%arg16, %69) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %71 = "arith.constant"() <{value = 70 : index}> : () -> index
        %72 = "arith.subi"(%71, %70) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %73 = "arith.constant"() <{value = 16 : index}> : () -> index
        %74 = "arith.minsi"(%73, %72) : (index, index) -> index
        %75 = "arith.constant"() <{value = 0 : index}> : () -> index
        %76 = "arith.addi"(%75, %23) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %77 = "arith.constant"() <{value = 0 : index}> : () -> index
        %78 = "arith.addi"(%77, %70) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg0, %76, %78, %35) <{vector = 4 : i64}> : (memref<100x70xf32>, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>) -> ()
        %79 = "arith.constant"() <{value = 0 : index}> : () -> index
        %80 = "arith.addi"(%79, %70) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %81 = "arith.constant"() <{value = 0 : index}> : () -> index
        %82 = "arith.addi"(%81, %25) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg1, %80, %82, %36) <{vector = 4 : i64}> : (memref<70x90xf32>, index, index, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%29, %33, %74, %35, %36, %37) <{accumulate, axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 8, 16, 1>}> ({
        ^bb0(%arg17: f32, %arg18: f32):
          %83 = "arith.mulf"(%arg17, %arg18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%83) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>, memref<32x32xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      %39 = "arith.constant"() <{value = 12 : index}> : () -> index
      %40 = "arith.remui"(%3, %39) : (index, index) -> index
      %41 = "arith.divui"(%3, %39) : (index, index) -> index
      %42 = "arith.constant"() <{value = 16 : index}> : () -> index
      %43 = "arith.divui"(%40, %42) : (index, index) -> index
      %44 = "arith.constant"() <{value = 4 : index}> : () -> index
      %45 = "arith.muli"(%43, %44) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %46 = "arith.constant"() <{value = 3 : index}> : () -> index
      %47 = "arith.subi"(%46, %45) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %48 = "arith.constant"() <{value = 4 : index}> : () -> index
      %49 = "arith.minui"(%47, %48) : (index, index) -> index
      %50 = "arith.remui"(%40, %42) : (index, index) -> index
      %51 = "arith.remui"(%50, %49) : (index, index) -> index
      %52 = "arith.addi"(%45, %51) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %53 = "arith.divui"(%50, %49) : (index, index) -> index
      %54 = "arith.constant"() <{value = 0 : index}> : () -> index
      %55 = "arith.constant"() <{value = 32 : index}> : () -> index
      %56 = "arith.muli"(%53, %55) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %57 = "arith.constant"() <{value = 32 : index}> : () -> index
      %58 = "arith.muli"(%52, %57) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %59 = "arith.constant"() <{value = 100 : index}> : () -> index
      %60 = "arith.subi"(%59, %56) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %61 = "arith.constant"() <{value = 32 : index}> : () -> index
      %62 = "arith.minsi"(%61, %60) : (index, index) -> index
      %63 = "arith.constant"() <{value = 90 : index}> : () -> index
      %64 = "arith.subi"(%63, %58) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %65 = "arith.constant"() <{value = 32 : index}> : () -> index
      %66 = "arith.minsi"(%65, %64) : (index, index) -> index
      %67 = "arith.constant"() <{value = 70 : index}> : () -> index
      %68 = "memref.subview"(%arg2, %56, %58) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 32, 32>, static_strides = array<i64: 1, 1>}> : (memref<100x90xf32>, index, index) -> memref<32x32xf32, strided<[90, 1], offset: ?>>
      "ext.tile_compute"(%62, %66, %37, %68) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 8, 16>}> ({
      ^bb0(%arg15: f32):
        "ext.yield"(%arg15) : (f32) -> ()
      }, {
      }) : (index, index, memref<32x32xf32>, memref<32x32xf32, strided<[90, 1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

