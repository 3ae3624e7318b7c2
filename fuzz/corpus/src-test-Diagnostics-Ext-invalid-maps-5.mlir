func.func @output_misses_spatial_axis(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of output #0 does not use spatial axis 'j'; every spatial axis must index every output}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
