#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<100xindex>) -> (), sym_name = "iota"}> ({
  ^bb0(%arg0: memref<100xindex>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 1 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = 32 : i64, tiles = array<i64: 4>}> ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 32 : index}> : () -> index
      %2 = "arith.muli"(%arg2) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

