func.func @body_memory_effect(%X: memref<4xf32>, %Y: memref<4xf32>, %Z: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.load' op has memory effects, which are not allowed in the regions of an ext.compute}}
    %z = memref.load %Z[%c0] : memref<4xf32>
    ext.yield %z : f32
  }
  return
}
