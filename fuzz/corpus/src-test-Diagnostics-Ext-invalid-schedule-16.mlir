func.func @unknown_key(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{unknown schedule key 'tiles' (expected tile, blocks, threads, cache, decomposition, raster, swizzle, vector or unroll)}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tiles = [8], threads = [8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
