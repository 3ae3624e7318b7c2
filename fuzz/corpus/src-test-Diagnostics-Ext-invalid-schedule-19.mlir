func.func @bad_storage_align(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+2 {{storage_align offset must be in [0, factor), got 32 with factor 32}}
      // expected-error @+1 {{failed to parse Ext_CacheAttr parameter 'align'}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 32>]>]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
