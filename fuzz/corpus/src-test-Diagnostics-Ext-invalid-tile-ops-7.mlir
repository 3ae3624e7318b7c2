func.func @copy_offsets(%A: memref<32x32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op needs one offset per source dimension (2), got 1}}
  ext.copy %A[%c0] to %s : memref<32x32xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}
