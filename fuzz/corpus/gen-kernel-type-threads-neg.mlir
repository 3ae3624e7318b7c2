"builtin.module"() ({
  "func.func"() <{function_type = (memref<16xf32>) -> (), sym_name = "kernel_with_loop"}> ({
  ^bb0(%arg0: memref<16xf32>):
    "ext.kernel"() <{decomposition = #ext.data_parallel, iters = 2 : i64, raster = 0 : i32, swizzle = 1 : i64, threads = -1 : i32, tiles = array<i64: 1>}> ({
    ^bb0(%arg2: index, %arg3: index, %arg4: index):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 1 : index}> : () -> index
      "scf.for"(%arg3, %arg4, %1) ({
      ^bb0(%arg5: index):
        %2 = "memref.load"(%arg0, %0) : (memref<16xf32>, index) -> f32
        "memref.store"(%2, %arg0, %arg5) : (f32, memref<16xf32>, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "ext.kernel_yield"() : () -> ()
    }, {
    ^bb0(%arg1: index):
      "ext.kernel_yield"() : () -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

