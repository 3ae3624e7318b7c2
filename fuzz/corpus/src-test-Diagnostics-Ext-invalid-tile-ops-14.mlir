// The compute-like checks apply to tile computes too.
func.func @tile_compute_map_count(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op expects one indexing map per operand (2), got 1}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
