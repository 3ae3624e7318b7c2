module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      %a = arith.constant 1.0 : f16
      // expected-error @below {{'gpu.subgroup_mma_constant_matrix' op is not supported by the CPU emulation of GPU kernels}}
      %m = gpu.subgroup_mma_constant_matrix %a : !gpu.mma_matrix<16x16xf16, "COp">
      gpu.return
    }
  }
}
