#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<32x32xf32>, memref<32x48xf32>) -> (), sym_name = "tile_level"}> ({
  ^bb0(%arg0: memref<32x32xf32>, %arg1: memref<32x48xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 4 : i64, raster = 1 : i32, swizzle = 2 : i64, threads = 64 : i64, tiles = array<i64: 2, 3>}> ({
    ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index):
      %0 = "ext.alloc_shared"() <{storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]}> : () -> memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
      %1 = "ext.alloc_fragment"() <{threads = array<i64: 8, 8>}> : () -> memref<16x16xf32>
      %2 = "arith.constant"() <{value = 0 : index}> : () -> index
      %3 = "arith.constant"() <{value = 8 : index}> : () -> index
      %4 = "arith.constant"() <{value = 16 : index}> : () -> index
      "ext.copy"(%arg0, %2, %2, %0) <{vector = 2 : i64}> : (memref<32x32xf32>, index, index, memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>) -> ()
      %5 = "memref.subview"(%arg1) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 8, 16>, static_strides = array<i64: 1, 1>}> : (memref<32x48xf32>) -> memref<8x16xf32, strided<[48, 1]>>
      "ext.tile_compute"(%4, %4, %3, %0, %5, %1) <{accumulate, axes = [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>, #ext.axis<"k", reduce, 8>], combiner = -1 : i32, indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 3, 2, 1>, threads = array<i64: 8, 8, 1>}> ({
      ^bb0(%arg9: f32, %arg10: f32):
        %6 = "arith.mulf"(%arg9, %arg10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "ext.yield"(%6) : (f32) -> ()
      }, {
      }) : (index, index, index, memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>, memref<8x16xf32, strided<[48, 1]>>, memref<16x16xf32>) -> ()
      "ext.kernel_yield"(%1) : (memref<16x16xf32>) -> ()
    }, {
    ^bb0(%arg2: index, %arg3: index, %arg4: memref<16x16xf32>):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

