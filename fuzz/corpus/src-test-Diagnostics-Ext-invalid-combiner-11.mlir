func.func @builtin_on_vectors(%X: memref<4x8xvector<4xf32>>, %Y: memref<4xvector<4xf32>>) {
  // expected-error @+1 {{combiner 'sum' needs integer or floating-point outputs, output #0 has element type 'vector<4xf32>'}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xvector<4xf32>>) outs(%Y : memref<4xvector<4xf32>>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: vector<4xf32>):
    ext.yield %x : vector<4xf32>
  }
  return
}
