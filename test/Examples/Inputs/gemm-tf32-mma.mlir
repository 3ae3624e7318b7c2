// A tf32 tensor-core GEMM (m16n8k8, f32 inputs rounded to tf32), operands
// read element by element. Used by mma-targets.mlir.

func.func @gemm_tf32(%A: memref<64x48xf32>, %B: memref<48x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 48>]
      ins(%A, %B : memref<64x48xf32>, memref<48x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [1, 32, 1],
        mma = #ext.mma<m16n8k8>, warps = [1, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]>,
                 #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

