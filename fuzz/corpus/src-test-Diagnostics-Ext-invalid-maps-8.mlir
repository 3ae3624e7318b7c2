func.func @extent_mismatch(%A: memref<64x16xf32>, %B: memref<16x32xf32>, %C: memref<64x32xf32>) {
  // expected-error @+1 {{input #1 dimension #0 has size 16 but axis 'k' that indexes it has extent 17}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 17>]
      ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>) outs(%C : memref<64x32xf32>)
      maps [affine_map<(i, j, k) -> (i, 0)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
