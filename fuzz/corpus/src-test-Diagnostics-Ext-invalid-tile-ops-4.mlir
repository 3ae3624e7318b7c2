func.func @fragment_not_divisible() {
  // expected-error @+1 {{'ext.alloc_fragment' op dimension #1 of size 16 is not a multiple of its 6 threads}}
  %f = ext.alloc_fragment threads [8, 6] : memref<16x16xf32>
  return
}
