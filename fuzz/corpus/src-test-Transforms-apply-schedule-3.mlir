// Computes without a schedule stay as they are.
func.func @unscheduled(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
