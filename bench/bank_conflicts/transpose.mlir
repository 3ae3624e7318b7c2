// A bench input (not an example): B = A^T through a shared 32x32 tile of A.
// The tile is written row by row (coalesced global reads) and read down its
// columns (lanes walk j, which indexes A's rows): the textbook 32-way
// conflict that storage_align and XOR swizzles remove.
func.func @transpose(%A: memref<100x90xf32>, %B: memref<90x100xf32>) {
  ext.compute [#ext.axis<"i", spatial, 90>, #ext.axis<"j", spatial, 100>]
      ins(%A : memref<100x90xf32>) outs(%B : memref<90x100xf32>)
      maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 32],
        cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}
