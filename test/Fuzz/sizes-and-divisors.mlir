// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule
// Fuzzer findings: sizes and divisors taken from the input without a check.

// A storage_align padding of a huge buffer overflowed int64 (UBSan: signed
// overflow in AllocSharedOp::computeAlignedStrides); it is an error now.
func.func @shared_padding_overflows() {
  // expected-error @+1 {{'ext.alloc_shared' op padded size of 'memref<4611686018427387904x4611686018427387904xf32, #gpu.address_space<workgroup>>' overflows a 64-bit element count}}
  %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 9223372036854775807, offset = 9223372036854775806>]} : memref<4611686018427387904x4611686018427387904xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// The same padding, planned by ext-apply-schedule for a cached input.
func.func @cached_tile_overflows(%A: memref<64x64xf32>, %C: memref<64xf32>) {
  // expected-error @+1 {{'ext.compute' op the shared tile of input #0 overflows a 64-bit size}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A : memref<64x64xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 16], blocks = ["i"], threads = [16, 1], cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 9223372036854775807, offset = 9223372036854775806>]>]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

// `mod 0` in an access map reached upstream's affine flattener, which
// divides by it (SIGFPE in the verifier).
func.func @mod_zero(%A: memref<64x64xf32>, %C: memref<64xf32>) {
  // expected-error @+1 {{'ext.compute' op indexing map of input #0 divides by '0' in 'd1 mod 0'; mod and divisions need a positive constant divisor}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A : memref<64x64xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k mod 0)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @floordiv_negative(%A: memref<64x64xf32>, %C: memref<64xf32>) {
  // expected-error @+1 {{'ext.compute' op indexing map of input #0 divides by '-2' in 'd1 floordiv -2'}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A : memref<64x64xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k floordiv -2)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

// The product of a schedule's thread counts overflowed int64 (UBSan) before
// the 1024-thread limit was checked.
func.func @threads_overflow(%A: memref<4294967296x4294967296xf32>, %C: memref<4294967296xf32>) {
  // expected-error @+1 {{asks for more than 2^63 threads per block; a block allows at most 1024}}
  ext.compute [#ext.axis<"i", spatial, 4294967296>, #ext.axis<"k", reduce, 4294967296>]
      ins(%A : memref<4294967296x4294967296xf32>) outs(%C : memref<4294967296xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [4294967296, 4294967296], blocks = [], threads = [4294967296, 4294967296]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}
