func.func @two_split_reduce_axes(%X: memref<4x8x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{schedule: tiles 2 reduce axes below their extents; only one reduce axis can be iterated over}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"r", reduce, 8>, #ext.axis<"s", reduce, 8>]
      ins(%X : memref<4x8x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, r, s) -> (i, r, s)>, affine_map<(i, r, s) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 4, 4], blocks = ["i"], threads = [1, 1, 1]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
