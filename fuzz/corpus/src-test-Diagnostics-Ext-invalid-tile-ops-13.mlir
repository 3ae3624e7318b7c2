func.func @tile_compute_threads_rank(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op has 2 thread counts but 1 axes}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8, 1]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
