// No reduce axis: the body's value is stored directly, no iter_args.
func.func @relu(%X: memref<16xf32>, %Y: memref<16xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>] ins(%X : memref<16xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    ext.yield %r : f32
  }
  return
}
