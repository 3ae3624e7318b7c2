func.func @shared_dynamic() {
  // expected-error @+1 {{'ext.alloc_shared' op needs a static shape}}
  %s = ext.alloc_shared : memref<?x8xf32, #gpu.address_space<workgroup>>
  return
}
