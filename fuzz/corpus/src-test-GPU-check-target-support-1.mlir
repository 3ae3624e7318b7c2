module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @cluster_queries() kernel {
      // expected-error @below {{'gpu.cluster_dim' op uses thread block clusters}}
      %d = gpu.cluster_dim y
      // expected-error @below {{'gpu.cluster_block_id' op uses thread block clusters}}
      %b = gpu.cluster_block_id z
      // expected-error @below {{'gpu.cluster_dim_blocks' op uses thread block clusters}}
      %n = gpu.cluster_dim_blocks x
      gpu.return
    }
  }
}
