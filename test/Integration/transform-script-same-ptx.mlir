// A schedule written in a transform script gives the same kernel as the
// same schedule written inline (Inputs/gemm-inline-schedule.mlir): the
// script sets part of it and edits in the rest, and the PTX of both
// modules, for sm_80 and sm_90, is identical. The HSACO path is compared
// on the IR it translates.
// REQUIRES: ptxas
//
// RUN: for c in 80 90; do \
// RUN:   ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_$c" | ext-translate --ext-to-ptx -o %t.script.$c.ptx && \
// RUN:   ext-opt %S/Inputs/gemm-inline-schedule.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" | ext-translate --ext-to-ptx -o %t.inline.$c.ptx && \
// RUN:   %ptxas -arch=sm_$c %t.script.$c.ptx -o /dev/null && \
// RUN:   diff %t.script.$c.ptx %t.inline.$c.ptx || exit 1; done
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" -o %t.script.rocdl.mlir
// RUN: ext-opt %S/Inputs/gemm-inline-schedule.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" -o %t.inline.rocdl.mlir
// RUN: diff %t.script.rocdl.mlir %t.inline.rocdl.mlir
// RUN: FileCheck %s < %t.script.90.ptx
// CHECK: .entry gemm_kernel
// CHECK: cp.async

func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C"} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "C" in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [64, 64, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], vector = 4> to %c : !transform.any_op
    transform.ext.update_schedule %c with {
        tile = [128, 128, 8], layout = #ext.blocked<thread_tile = [4, 4]>,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>],
        swizzle = 2, stages = 3} : !transform.any_op
    transform.yield
  }
}
