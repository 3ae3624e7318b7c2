func.func @kernel_threads() {
  // expected-error @+1 {{'ext.kernel' op has 2048 threads per block; a block holds 1 to 1024}}
  ext.kernel tiles [2] iters 1 threads 2048 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%a: index):
    ext.kernel_yield
  }
  return
}
