func.func @copy_rank(%A: memref<32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op copies a rank-2 window out of a rank-1 source}}
  ext.copy %A[%c0] to %s : memref<32xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}
