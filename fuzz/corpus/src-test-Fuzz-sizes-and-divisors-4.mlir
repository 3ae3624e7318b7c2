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
