func.func @tile_compute_accumulate_without_reduce(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op accumulates, but has no reduce axis}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] accumulate {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
