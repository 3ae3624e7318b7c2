module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @launch_func_with_clusters() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // expected-error @below {{'gpu.launch_func' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
    gpu.launch_func @m::@k clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
