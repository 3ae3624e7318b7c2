func.func @tile_op_outside_launch(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op must be inside a gpu.launch to be lowered to threads; run ext-lower-decomposition first}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
