func.func @two_thread_reduce_axes(%X: memref<4x8x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{schedule: binds 2 reduce axes to threads; at most one is supported}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"r", reduce, 8>, #ext.axis<"s", reduce, 8>]
      ins(%X : memref<4x8x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, r, s) -> (i, r, s)>, affine_map<(i, r, s) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 8, 8], blocks = ["i"], threads = [1, 8, 8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
