// The plugin's decomposition takes part in #ext.auto: the registry (which
// the plugin's entry point adds it to) offers it to the cost model, and the
// report lists it among ext's own. Its prediction (whole tiles in waves,
// the interface's default) equals data-parallel's; on 12 tiles of 4
// iterations split-K beats both.
// RUN: ext-opt %s --load-dialect-plugin=%plugin --ext-apply-schedule="report=true chip=sm_90" -o /dev/null 2>&1 | FileCheck %s
// Without the plugin, auto weighs ext's own only.
// RUN: ext-opt %s --ext-apply-schedule="report=true chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK-LABEL: remark: decomposition #ext.split_k<slices = 4> for 12 tiles of 4 iterations on 132 SMs
// CHECK: data_parallel: utilization 0.091, grid 12, waves 1, max iterations per CTA 4, fixups 0
// CHECK: * split_k<slices = 4>: utilization 0.145
// CHECK: stream_k_2tile: utilization
// CHECK-NEXT: ext_example.serpentine<run = 4>: utilization 0.091, grid 12, waves 1, max iterations per CTA 4, fixups 0
// NOPLUGIN-NOT: ext_example.serpentine
func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x48xf32>) outs(%C : memref<64x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        decomposition = #ext.auto>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
