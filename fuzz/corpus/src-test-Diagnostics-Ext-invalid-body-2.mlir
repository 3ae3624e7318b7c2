func.func @body_yield_count(%X: memref<4xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    // expected-error @+1 {{'ext.yield' op yields 2 values but the body of its ext.compute must yield 1, one per output}}
    ext.yield %x, %x : f32, f32
  }
  return
}
