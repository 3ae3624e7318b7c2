// Fuzzer findings: sizes and divisors taken from the input without a check.

// A storage_align padding of a huge buffer overflowed int64 (UBSan: signed
// overflow in AllocSharedOp::computeAlignedStrides); it is an error now.
func.func @shared_padding_overflows() {
  // expected-error @+1 {{'ext.alloc_shared' op padded size of 'memref<4611686018427387904x4611686018427387904xf32, #gpu.address_space<workgroup>>' overflows a 64-bit element count}}
  %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 9223372036854775807, offset = 9223372036854775806>]} : memref<4611686018427387904x4611686018427387904xf32, #gpu.address_space<workgroup>>
  return
}
