func.func @copy_element_type(%A: memref<32x32xf16>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op copies 'f16' into 'f32'}}
  ext.copy %A[%c0, %c0] to %s : memref<32x32xf16> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}
