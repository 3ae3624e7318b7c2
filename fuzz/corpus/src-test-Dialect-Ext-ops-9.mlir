// No inputs: an iota written from the axis index.
func.func @iota(%Y: memref<10xindex>) {
  ext.compute [#ext.axis<"i", spatial, 10>] outs(%Y : memref<10xindex>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %i = ext.index "i" : index
    ext.yield %i : index
  }
  return
}
