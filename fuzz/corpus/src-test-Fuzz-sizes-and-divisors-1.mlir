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
