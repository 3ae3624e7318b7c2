// RUN: rm -rf %t && ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-report-svg=%t --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null 2>/dev/null
// RUN: %python %S/Inputs/check-svg.py %t/gemm_streamk.24.decomposition.svg --ctas 5 --fixups 4 | FileCheck %s --check-prefix=PLAN
// RUN: %python %S/Inputs/check-svg.py %t/gemm_streamk.smem.svg --buffers 3 --total 16384 --unpacked 24576 | FileCheck %s --check-prefix=SMEM
// RUN: rm -rf %t.split && ext-opt %s --ext-report-svg=%t.split --ext-cpu-pipeline -o /dev/null
// RUN: %python %S/Inputs/check-svg.py %t.split/split.*.decomposition.svg --ctas 12 --fixups 12 | FileCheck %s --check-prefix=SPLIT
// RUN: ext-opt %s --ext-report-svg=/dev/null/x --ext-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// `--ext-report-svg=DIR` draws each kernel's decomposition plan (a row per
// CTA, units in run order, an arrow per fixup wait) and shared-memory
// packing (buffers as live interval x bytes, packed total against the sum).
// The Stream-K example: 12 tiles of 7 k-steps on 5 CTAs, 4 partial tiles;
// its k-loop's A and B tiles share the epilogue's C staging tile's bytes.
// PLAN: ok: 5 CTAs, 0 buffers
// SMEM: ok: 0 CTAs, 3 buffers
// Parallel split-K, 4 tiles x 3 slices: 12 CTAs, each storing a partial, and the
// reduction launch's CTAs (one per tile) combine them.
// SPLIT: ok: 12 CTAs, 0 buffers
// BAD: warning: --ext-report-svg: cannot create '/dev/null/x'
func.func @split(%A: memref<64x96xf32>, %B: memref<96x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>,
               #ext.axis<"k", reduce, 96>]
      ins(%A, %B : memref<64x96xf32>, memref<96x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 8, 1],
        decomposition = #ext.split_k<slices = 3, mode = parallel>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
