func.func @missing_threads(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{schedule needs 'tile' and 'threads'}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
