func.func @reducer_yield_type(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 1 : i32
    // expected-error @+1 {{'ext.yield' op value #0 has type 'i32' but output #0 has element type 'f32'}}
    ext.yield %c : i32
  }
  return
}
