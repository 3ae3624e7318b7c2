module attributes {gpu.container_module} {
  gpu.module @m {
    "gpu.func"() <{function_type = () -> ()}> ({
      %b = memref.alloca() : memref<16xf32, #gpu.address_space<workgroup>>
      "gpu.return"() : () -> ()
    }) {sym_name = "func_without_count", gpu.kernel} : () -> ()
  }
}
