func.func @output_uses_reduce_axis(%X: memref<4x8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{indexing map of output #0 uses reduce axis 'k'; a reduce axis must not index an output}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
