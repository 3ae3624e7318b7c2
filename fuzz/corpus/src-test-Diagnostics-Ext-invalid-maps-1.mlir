func.func @map_dims(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has 2 dimensions, expected one per axis (1)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, j) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
