func.func @gemm(%A: memref<70x24xf32>, %B: memref<24x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<70x24xf32>, memref<24x50xf32>) outs(%C : memref<70x50xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext_example.serpentine<run = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
