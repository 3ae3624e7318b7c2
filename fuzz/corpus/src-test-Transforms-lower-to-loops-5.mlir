// A custom reducer is inlined with (accumulators..., new values...); ext.index
// becomes the induction variable, also inside nested regions.
func.func @argmax(%X: memref<4x16xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 16>]
      ins(%X : memref<4x16xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %rv = arith.select %gt, %v, %av : f32
    %ri = arith.select %gt, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}
