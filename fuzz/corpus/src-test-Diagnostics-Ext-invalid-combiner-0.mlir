// Combiners, identities and custom reducers that do not match the outputs.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @reduce_without_combiner(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{has reduce axis 'k' but no combiner}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
