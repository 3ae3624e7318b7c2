// #ext.auto on problems far past a simulation CTA by CTA: the cost model
// (ext/Support/TileWork.h) predicts them in time and memory independent of
// the tile count, and auto weighs only candidates whose grid can launch.
// RUN: not ext-opt %s --split-input-file --ext-apply-schedule="report=true chip=sm_90" -o /dev/null 2>&1 | FileCheck %s

// 2^24 tiles of 8 iterations: every candidate launches; Stream-K's 132 equal
// shares end a few iterations before data-parallel's partial last wave.
// CHECK-LABEL: remark: decomposition #ext.stream_k<grid = 132, sms = 132> for 16777216 tiles of 8 iterations on 132 SMs
// CHECK-SAME: grid 132, waves 1, at most 127101 units and 1016801 iterations per CTA, 112 fixups
// CHECK-NEXT: data_parallel: utilization 1.000, grid 16777216, waves 127101
// CHECK: split_k<slices = 8, mode = parallel>: utilization 0.842, grid 134217728
// CHECK-NEXT: * stream_k<grid = 132>: utilization 1.000
// CHECK-NEXT: stream_k_dp: utilization 1.000, grid 16777328
// CHECK-NEXT: stream_k_2tile: utilization 1.000, grid 16777200
func.func @tiles_2_24(%A: memref<65536x256xf32>, %B: memref<256x65536xf32>, %C: memref<65536x65536xf32>) {
  ext.compute [#ext.axis<"i", spatial, 65536>, #ext.axis<"j", spatial, 65536>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<65536x256xf32>, memref<256x65536xf32>) outs(%C : memref<65536x65536xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.auto>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// 2^40 tiles: data-parallel, split-K and the hybrids would launch about
// 2^40 CTAs, past the grid's limit; Stream-K's 132 CTAs take about
// 2^33 tiles each.
// CHECK-LABEL: remark: decomposition #ext.stream_k<grid = 132, sms = 132> for 1099511627776 tiles of 8 iterations on 132 SMs
// CHECK-SAME: grid 132, waves 1, at most 8329633545 units and 66637068351 iterations per CTA, 112 fixups
// CHECK-NEXT: * stream_k<grid = 132>: utilization 1.000
// CHECK-NOT: split_k
// CHECK-NOT: stream_k_dp:
func.func @tiles_2_40(%A: memref<16777216x256xf32>, %B: memref<256x16777216xf32>, %C: memref<16777216x16777216xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16777216>, #ext.axis<"j", spatial, 16777216>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<16777216x256xf32>, memref<256x16777216xf32>) outs(%C : memref<16777216x16777216xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.auto>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// 2^40 tiles of 65536 iterations: Stream-K's index math would overflow 64
// bits too, so nothing can run it.
// CHECK: error: 'ext.compute' op decomposition #ext.auto found no candidate that can run 1099511627776 tiles of 65536 iterations on 132 SMs
func.func @nothing_fits(%A: memref<16777216x2097152xf32>, %B: memref<2097152x16777216xf32>, %C: memref<16777216x16777216xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16777216>, #ext.axis<"j", spatial, 16777216>,
               #ext.axis<"k", reduce, 2097152>]
      ins(%A, %B : memref<16777216x2097152xf32>, memref<2097152x16777216xf32>) outs(%C : memref<16777216x16777216xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.auto>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
