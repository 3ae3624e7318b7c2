func.func @kernel_body_args() {
  // expected-error @+1 {{'ext.kernel' op body takes 2 tile coordinates, k_begin and k_end, all index}}
  ext.kernel tiles [2, 2] iters 1 threads 32 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%a: index, %b: index):
    ext.kernel_yield
  }
  return
}
