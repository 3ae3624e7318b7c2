// What the CPU emulation cannot run is an error naming the op where it is.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      // expected-error @below {{'gpu.cluster_id' op is not supported by the CPU emulation of GPU kernels}}
      %c = gpu.cluster_id x
      %i = arith.index_cast %c : index to i32
      gpu.printf "%d", %i : i32
      gpu.return
    }
  }
}
