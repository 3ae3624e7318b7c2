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
