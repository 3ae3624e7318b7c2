func.func @fragment_threads_rank() {
  // expected-error @+1 {{'ext.alloc_fragment' op has 1 thread counts for a rank-2 fragment}}
  %f = ext.alloc_fragment threads [8] : memref<16x16xf32>
  return
}
