// A kernel that uses a feature the chip lacks gets one error at the op, before
// convert-gpu-to-nvvm lowers it to IR that does not verify for that chip.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @cluster_id() kernel {
      // expected-error @below {{'gpu.cluster_id' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
      %c = gpu.cluster_id x
      gpu.return
    }
  }
}
