// ext.index in the body becomes the global index: tile-local + offset.
func.func @iota(%Y: memref<100xindex>) {
  ext.compute [#ext.axis<"i", spatial, 100>] outs(%Y : memref<100xindex>)
      maps [affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [32], blocks = ["i"], threads = [32]>} {
  ^bb0:
    %i = ext.index "i" : index
    ext.yield %i : index
  }
  return
}
