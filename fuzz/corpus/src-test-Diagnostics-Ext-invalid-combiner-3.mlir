func.func @identity_count(%X: memref<4x8xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  // expected-error @+1 {{has 1 identity values but 2 outputs}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    %c = arith.constant 0 : i32
    ext.yield %x, %c : f32, i32
  } reducer {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    ext.yield %a, %ai : f32, i32
  }
  return
}
