// ext-cpu-pipeline leaves only the LLVM dialect, which ext-translate turns
// into LLVM IR.

func.func @row_sum(%X: memref<4x6xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 6>]
      ins(%X : memref<4x6xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
