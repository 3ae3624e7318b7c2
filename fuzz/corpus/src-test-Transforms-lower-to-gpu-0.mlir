// The matmul becomes one gpu.launch of 12 CTAs of 128 threads; the two
// shared tiles are workgroup attributions of their padded sizes (32 rows of
// 33 floats, 16 rows of 32); the fragment is a private attribution of 4x2
// floats (registers once LLVM sees its unrolled constant indices); the k
// loop copies, synchronizes, accumulates and synchronizes again.

// Dropping barrier #0 (after the copies) leaves only the loop's closing one.
func.func @matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
