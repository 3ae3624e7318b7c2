// Bodies, ext.yield and ext.index used wrongly.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @body_arity(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{body has 2 arguments, expected one per input (1)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32, %z: f32):
    ext.yield %x : f32
  }
  return
}
