func.func @output_extent_mismatch(%X: memref<4xf32>, %Y: memref<5xf32>) {
  // expected-error @+1 {{output #0 dimension #0 has size 5 but axis 'i' that indexes it has extent 4}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<5xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
