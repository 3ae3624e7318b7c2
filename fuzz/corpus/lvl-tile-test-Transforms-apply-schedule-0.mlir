#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100x70xf32>, memref<70x90xf32>, memref<100x90xf32>) -> (), sym_name = "matmul"}> ({
  ^bb0(%arg0: memref<100x70xf32>, %arg1: memref<70x90xf32>, %arg2: memref<100x90xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 5 : i64, raster = 0 : i32, swizzle = 4 : i64, threads = 128 : i64, tiles = array<i64: 4, 3>}> ({
    ^bb0(%arg7: index, %arg8: index, %arg9: index, %arg10: index):
      %15 = "arith.constant"() <{value = 0 : index}> : () -> index
      %16 = "arith.constant"() <{value = 32 : index}> : () -> index
      %17 = "arith.muli"(%arg7, %16) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %18 = "arith.constant"() <{value = 32 : index}> : () -> index
      %19 = "arith.muli"(%arg8, %18) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %20 = "arith.constant"() <{value = 100 : index}> : () -> index
      %21 = "arith.subi"(%20, %17) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %22 = "arith.constant"() <{value = 32 : index}> : () -> index
      %23 = "arith.minsi"(%22, %21) : (index, index) -> index
      %24 = "arith.constant"() <{value = 90 : index}> : () -> index
      %25 = "arith.subi"(%24, %19) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %26 = "arith.constant"() <{value = 32 : index}> : () -> index
      %27 = "arith.minsi"(%26, %25) : (index, index) -> index
      %28 = "arith.constant"() <{value = 70 : index}> : () -> index
      %29 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}> : () -> memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
      %30 = "ext.alloc_shared"() : () -> memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
      %31 = "ext.alloc_fragment"() <{threads = array<i64: 8, 16>}> : () -> memref<32x32xf32>
      "ext.tile_compute"(%31) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map], operandSegmentSizes = array<i32: 0, 0, 1>, threads = array<i64: 8, 16>}> ({
        %48 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        "ext.yield"(%48) : (f32) -> ()
      }, {
      }) : (memref<32x32xf32>) -> ()
      %32 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%arg9, %arg10, %32) ({
      ^bb0(%arg11: index):
        %33 = "arith.constant"() <{value = 16 : index}> : () -> index
        %34 = "arith.muli"(%arg11, %33) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %35 = "arith.constant"() <{value = 70 : index}> : () -> index
        %36 = "arith.subi"(%35, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %37 = "arith.constant"() <{value = 16 : index}> : () -> index
        %38 = "arith.minsi"(%37, %36) : (index, index) -> index
        %39 = "arith.constant"() <{value = 0 : index}> : () -> index
        %40 = "arith.addi"(%39, %17) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %41 = "arith.constant"() <{value = 0 : index}> : () -> index
        %42 = "arith.addi"(%41, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg0, %40, %42, %29) <{vector = 1 : i64}> : (memref<100x70xf32>, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>) -> ()
        %43 = "arith.constant"() <{value = 0 : index}> : () -> index
        %44 = "arith.addi"(%43, %34) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %45 = "arith.constant"() <{value = 0 : index}> : () -> index
        %46 = "arith.addi"(%45, %19) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "ext.copy"(%arg1, %44, %46, %30) <{vector = 1 : i64}> : (memref<70x90xf32>, index, index, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) -> ()
        "ext.tile_compute"(%23, %27, %38, %29, %30, %31) <{accumulate, axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>], combiner = 0 : i32, indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 8, 16, 1>}> ({
        ^bb0(%arg12: f32, %arg13: f32):
          %47 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "ext.yield"(%47) : (f32) -> ()
        }, {
        }) : (index, index, index, memref<32x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>, memref<16x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>, memref<32x32xf32>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "ext.kernel_yield"(%31) : (memref<32x32xf32>) -> ()
    }, {
    ^bb0(%arg3: index, %arg4: index, %arg5: memref<32x32xf32>):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 32 : index}> : () -> index
      %2 = "arith.muli"(%arg3, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %3 = "arith.constant"() <{value = 32 : index}> : () -> index
      %4 = "arith.muli"(%arg4, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %5 = "arith.constant"() <{value = 100 : index}> : () -> index
      %6 = "arith.subi"(%5, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %7 = "arith.constant"() <{value = 32 : index}> : () -> index
      %8 = "arith.minsi"(%7, %6) : (index, index) -> index
      %9 = "arith.constant"() <{value = 90 : index}> : () -> index
      %10 = "arith.subi"(%9, %4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %11 = "arith.constant"() <{value = 32 : index}> : () -> index
      %12 = "arith.minsi"(%11, %10) : (index, index) -> index
      %13 = "arith.constant"() <{value = 70 : index}> : () -> index
      %14 = "memref.subview"(%arg2, %2, %4) <{operandSegmentSizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 32, 32>, static_strides = array<i64: 1, 1>}> : (memref<100x90xf32>, index, index) -> memref<32x32xf32, strided<[90, 1], offset: ?>>
      "ext.tile_compute"(%8, %12, %arg5, %14) <{axes = [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>], indexing_maps = [#map, #map], operandSegmentSizes = array<i32: 2, 1, 1>, threads = array<i64: 8, 16>}> ({
      ^bb0(%arg6: f32):
        "ext.yield"(%arg6) : (f32) -> ()
      }, {
      }) : (index, index, memref<32x32xf32>, memref<32x32xf32, strided<[90, 1], offset: ?>>) -> ()
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

