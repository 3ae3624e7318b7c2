#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<32x32xf32>, memref<32x48xf32>) -> (), sym_name = "tile_level"}> ({
  ^bb0(%arg0: memref<32x32xf32>, %arg1: memref<32x48xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 4 : i64, raster = 1 : i32, swizzle = 2 : i64, threads = 64 : i64, tiles = array<i64: 2, 3>}>  : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

