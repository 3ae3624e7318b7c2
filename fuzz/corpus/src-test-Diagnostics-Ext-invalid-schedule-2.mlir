func.func @tile_too_big(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: tile size 128 of axis 'i' exceeds its extent 64}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [128, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
