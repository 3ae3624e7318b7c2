// Indexing maps that do not fit the domain or the operands.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @map_count(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{expects one indexing map per operand (2), got 1}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
