// RUN: ext-opt %s --split-input-file --ext-tile-ops-to-threads=chip=gfx942 | FileCheck %s --check-prefix=WAVE64
// RUN: ext-opt %s --split-input-file --ext-tile-ops-to-threads=chip=sm_80 | FileCheck %s --check-prefix=WARP32

// A reduce axis over 64 threads. On a 64-lane AMD wave it is one wave: six
// shuffles of width 64 and no workgroup scratch. gpu.shuffle's width counts
// lanes from lane 0, so shuffles of width 32 would leave lanes 32..63 out
// (the emulator, which follows that rule, found the row sums wrong).
// On NVIDIA the same axis is two warps: five shuffles of width 32, then
// the warps' partials through workgroup scratch.
// WAVE64-LABEL: func @row_sum
// WAVE64-NOT:     ext.alloc_shared
// WAVE64-COUNT-6: gpu.shuffle xor %{{.*}}, %{{.*}}, %c64_i32
// WAVE64-NOT:     gpu.shuffle
// WAVE64-NOT:     gpu.barrier
// WAVE64:         gpu.terminator
// WARP32-LABEL: func @row_sum
// WARP32:         ext.alloc_shared : memref<4x2xf32, #gpu.address_space<workgroup>>
// WARP32-COUNT-5: gpu.shuffle xor %{{.*}}, %{{.*}}, %c32_i32
// WARP32-NOT:     gpu.shuffle
// WARP32:         gpu.barrier
func.func @row_sum(%A: memref<4x64xf32>, %C: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    ext.tile_compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 64>] threads [4, 64] ins(%A : memref<4x64xf32>) outs(%C : memref<4xf32>) maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}
