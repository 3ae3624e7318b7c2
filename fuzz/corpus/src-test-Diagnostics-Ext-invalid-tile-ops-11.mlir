func.func @tile_compute_bounds(%X: memref<8xf32>, %Y: memref<8xf32>) {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'ext.tile_compute' op has 2 bounds but 1 axes; give one per axis or none}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8] bounds(%c4, %c4)
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
