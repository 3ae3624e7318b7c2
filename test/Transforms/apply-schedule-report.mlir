// ext-apply-schedule{report=true}: the decomposition each compute gets on
// the chip, its work per CTA, fixups and predicted SM utilization against
// data-parallel's; for `auto`, every candidate the cost model weighed.
// RUN: ext-opt %s --split-input-file --ext-apply-schedule="report=true chip=sm_90" -o /dev/null 2>&1 | FileCheck %s

// 12 tiles of 7 iterations on 5 CTAs: 84 iterations, 16 or 17 per CTA.
// CHECK-LABEL: remark: decomposition #ext.stream_k<grid = 5, sms = 132> for 12 tiles of 7 iterations on 132 SMs
// CHECK-SAME: grid 5, waves 1, at most 4 units and 17 iterations per CTA, 4 fixups, predicted utilization 0.0{{[0-9]+}} (data_parallel: 0.0{{[0-9]+}})
func.func @stream_k(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [64, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.stream_k<grid = 5>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// One wave of 133 tiles on 132 SMs: data-parallel runs at about half.
// CHECK-LABEL: remark: decomposition
// CHECK-SAME: for 133 tiles of 64 iterations on 132 SMs
// CHECK-SAME: (data_parallel: 0.50{{[0-9]}})
// CHECK-NEXT: data_parallel: utilization 0.50{{[0-9]}}, grid 133, waves 2
// CHECK: stream_k<grid = 132>: utilization 0.9{{[0-9]+}}
func.func @auto(%A: memref<17024x2048xf32>, %B: memref<2048x128xf32>, %C: memref<17024x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, 17024>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 2048>]
      ins(%A, %B : memref<17024x2048xf32>, memref<2048x128xf32>) outs(%C : memref<17024x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 128, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.auto>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Data-parallel itself: its prediction, no comparison.
// CHECK-LABEL: remark: decomposition #ext.data_parallel for 4 tiles of 4 iterations on 132 SMs: grid 4, waves 1, at most 1 units and 4 iterations per CTA, 0 fixups, predicted utilization 0.030{{$}}
func.func @dp(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
