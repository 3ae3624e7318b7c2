func.func @index_in_reducer(%X: memref<4x8xindex>, %Y: memref<4xindex>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xindex>) outs(%Y : memref<4xindex>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0 : index] {
  ^bb0(%x: index):
    ext.yield %x : index
  } reducer {
  ^bb0(%a: index, %b: index):
    // expected-error @+1 {{'ext.index' op is only valid in the body of an ext.compute, not in its reducer}}
    %k = ext.index "k" : index
    ext.yield %k : index
  }
  return
}
