// examples/kernels/gemm_f32.mlir's GEMM with its schedule inline (the
// reference for transform-script-same-ptx.mlir).
func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<
        tile = [128, 128, 8], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>],
        swizzle = 2, stages = 3>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
