#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100x70xf32>, memref<70x90xf32>, memref<100x90xf32>) -> (), sym_name = "matmul"}> ({
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
      %9 = "arith.constant"() <{value = 3 : index}> : () -> index
      %10 = "arith.divui"(%7, %9) : (index, index) -> index
      %11 = "arith.constant"() <{value = 3 : index}> : () -> index
      %12 = "arith.remui"(%7, %11) : (index, index) -> index
      %13 = "arith.constant"() <{value = 0 : index}> : () -> index
      %14 = "arith.constant"() <{value = 32 : index}> : () -> index
      %15 = "arith.muli"(%10, %14) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %16 = "arith.constant"() <{value = 32 : index}> : () -> index
      %17 = "arith.muli"(%12, %16) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %18 = "arith.constant"() <{value = 100 : index}> : () -> index
      %19 = "arith.subi"(%18, %15) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %20 = "arith.constant"() <{value = 32 : index}> : () -> index
      %21 = "arith.minsi"(%20, %19) : (index, index) -> index
      %22 = "arith.constant"() <{value = 90 : index}> : () -> index
      %23 = "arith.subi"(%22, %17) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %24 = "arith.constant"() <{value = 32 : index}> : () -> index
      %25 = "arith.minsi"(%24, %23) : (index, index) -> index
      %26 = "arith.constant"() <{value = 70 : index}> : () -> index
      %27 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}> : () -> memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
      %28 = "ext.alloc_shared"() : () -> memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
      %29 = "ext.alloc_fragment"() <{threads = array<i64: 8, 16>}> : () -> memref<32x32xf32>
      "ext.tile_compute"(%29) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 8, 16>}> ({
        %68 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%68) : (f32) -> ()
      }, {
      }) : (memref<32x32xf32>) -> ()
      %30 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%4, %5, %30) ({
      ^bb0(%arg16: index):
        %53 = "arith.constant"() <{value = 16 : index}> : () -> index
        %54 = "arith.muli"(%arg16, %53) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %55 = "arith.constant"() <{value = 70 : index}> : () -> index
        %56 = "arith.subi"(%55, %54) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %57 = "arith.constant"() <{value = 16 : index}> : () -> index
        %58 = "arith.minsi"(%57, %56) : (index, index) -> index
        %59 = "arith.constant"() <{value = 0 : index}> : () -> index
        %60 = "arith.addi"(%59, %15) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %61 = "arith.constant"() <{value = 0 : index}> : () -> index
        %62 = "arith.addi"(%61, %54) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg0, %60, %62, %27) <{vector = 1 : i64}> : (memref<100x70xf32>, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>) -> ()
        %63 = "arith.constant"() <{value = 0 : index}> : () -> index
        %64 = "arith.addi"(%63, %54) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %65 = "arith.constant"() <{value = 0 : index}> : () -> index
        %66 = "arith.addi"(%65, %17) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg1, %64, %66, %28) <{vector = 1 : i64}> : (memref<70x90xf32>, index, index, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%21, %25, %58, %27, %28, %29) <{accumulate, axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 8, 16, 1>}> ({
        ^bb0(%arg17: f32, %arg18: f32):
          %67 = "arith.mulf"(%arg17, %arg18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%67) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>, memref<32x32xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      %31 = "arith.constant"() <{value = 12 : index}> : () -> index
      %32 = "arith.remui"(%3, %31) : (index, index) -> index
      %33 = "arith.divui"(%3, %31) : (index, index) -> index
      %34 = "arith.constant"() <{value = 3 : index}> : () -> index
      %35 = "arith.divui"(%32, %34) : (index, index) -> index
      %36 = "arith.constant"() <{value = 3 : index}> : () -> index
      %37 = "arith.remui"(%32, %36) : (index, index) -> index
      %38 = "arith.constant"() <{value = 0 : index}> : () -> index
      %39 = "arith.constant"() <{value = 32 : index}> : () -> index
      %40 = "arith.muli"(%35, %39) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %41 = "arith.constant"() <{value = 32 : index}> : () -> index
      %42 = "arith.muli"(%37, %41) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %43 = "arith.constant"() <{value = 100 : index}> : () -> index
      %44 = "arith.subi"(%43, %40) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %45 = "arith.constant"() <{value = 32 : index}> : () -> index
      %46 = "arith.minsi"(%45, %44) : (index, index) -> index
      %47 = "arith.constant"() <{value = 90 : index}> : () -> index
      %48 = "arith.subi"(%47, %42) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %49 = "arith.constant"() <{value = 32 : index}> : () -> index
      %50 = "arith.minsi"(%49, %48) : (index, index) -> index
      %51 = "arith.constant"() <{value = 70 : index}> : () -> index
      %52 = "memref.subview"(%arg2, %40, %42) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 32, 32>, static_strides = array<i64: 1, 1>}> : (memref<100x90xf32>, index, index) -> memref<32x32xf32, strided<[90, 1], offset: ?>>
      "ext.tile_compute"(%46, %50, %29, %52) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 8, 16>}> ({
      ^bb0(%arg15: f32):
        "ext.yield"(%arg15) : (f32) -> ()
      }, {
      }) : (index, index, memref<32x32xf32>, memref<32x32xf32, strided<[90, 1], offset: ?>>) -> ()
      "gpu.terminator"() : () -> ()
    }) {workgroup_attributions = 0 : i64} : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

