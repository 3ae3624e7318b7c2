// A schedule on a compute: every key, in any order on input, printed in a
// fixed order with defaults left out.
func.func @scheduled_matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<unroll = 2, tile = [32, 32, 16],
        threads = [8, 16, 1], blocks = ["i", "j"], swizzle = 4, raster = col, vector = 4,
        decomposition = #ext.data_parallel,
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>,
                 #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
