func.func @body_yield_type(%X: memref<4xf32>, %Y: memref<4xf16>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf16>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    // expected-error @+1 {{'ext.yield' op value #0 has type 'f32' but output #0 has element type 'f16'}}
    ext.yield %x : f32
  }
  return
}
