// A ragged 100x90x70 matmul on 32x32x16 tiles: a 4x3 tile grid, 5 reduce
// iterations, A and B staged in shared memory (A's rows padded to 33), a
// 32x32 fragment over 8x16 threads, edge bounds min(32, 100 - 32 ti).
func.func @matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>], swizzle = 4>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
