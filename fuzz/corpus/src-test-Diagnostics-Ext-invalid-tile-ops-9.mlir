func.func @kernel_epilogue_fragments() {
  // expected-error @+1 {{'ext.kernel' op epilogue takes 1 tile coordinates and the 1 fragments the body yields}}
  ext.kernel tiles [2] iters 1 threads 32 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [32] : memref<32xf32>
    ext.kernel_yield %f : memref<32xf32>
  } epilogue {
  ^bb0(%a: index):
    ext.kernel_yield
  }
  return
}
