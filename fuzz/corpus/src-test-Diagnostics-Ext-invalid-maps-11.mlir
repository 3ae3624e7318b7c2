func.func @negative_access(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{access 'd0 - 1' of input #0 dimension #0 ranges over [-1, 6], outside [0, 8)}}
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
