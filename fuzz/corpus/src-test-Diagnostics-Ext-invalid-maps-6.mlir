func.func @output_compound_access(%X: memref<4xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{indexing map of output #0 result #0 is 'd0 * 2'; output accesses must be single axes}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i * 2)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
