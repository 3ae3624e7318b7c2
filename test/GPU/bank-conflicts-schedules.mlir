// A shared 32x32 f32 tile written by rows and read down its columns (B = A^T
// through shared memory), scheduled with each layout of the cached operand:
// 32-way without one, conflict-free padded by storage_align and swizzled.
// RUN: ext-opt %s --split-input-file --ext-schedule-to-gpu --ext-gpu-bank-conflicts=summary=true -o /dev/null 2>&1 | FileCheck %s
// The AMD model: the same banks over a 64-lane wave in two 32-lane halves.
// RUN: ext-opt %s --split-input-file --ext-schedule-to-gpu --ext-gpu-bank-conflicts="summary=true chip=gfx942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not ext-opt %s --split-input-file --ext-schedule-to-gpu --ext-gpu-bank-conflicts="chip=gfx1100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOMODEL

// CHECK: remark: 32-way bank conflict: 32 wavefronts per warp for 4-byte accesses at byte 128*(tid.x mod 32) + 4*((tid.x floordiv 32) mod 8)
// CHECK-LABEL: ext-gpu-bank-conflicts: gpu.launch in @none (sm_80: 32 banks x 4 B, 32 lanes)
// CHECK-NEXT: n-way wavefronts padding B  access        location
// Each thread's 4 points are unrolled: 4 store and 4 load sites.
// CHECK-COUNT-4:     1          1         0  memref.store  copy of input 0 into shared memory
// CHECK-COUNT-4:    32         32         0  memref.load   tile compute
// CHECK-NEXT: worst: 32-way, 8 accesses, 0 unknown
// AMD-LABEL: ext-gpu-bank-conflicts: gpu.launch in @none (gfx942: 32 banks x 4 B, 64 lanes)
// AMD: 32         64         0  memref.load
// AMD: worst: 32-way, 8 accesses, 0 unknown
// NOMODEL: error: ext-gpu-bank-conflicts: no bank model for chip 'gfx1100'
func.func @none(%A: memref<100x90xf32>, %B: memref<90x100xf32>) {
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

// -----

// CHECK: remark: conflict-free: 1 wavefront per warp for 4-byte accesses at byte 132*(tid.x mod 32) + 4*((tid.x floordiv 32) mod 8)
// CHECK-LABEL: ext-gpu-bank-conflicts: gpu.launch in @padded
// CHECK-NEXT: n-way
// CHECK-COUNT-4:     1          1       128  memref.store
// CHECK-COUNT-4:     1          1       128  memref.load
// CHECK-NEXT: worst: 1-way, 8 accesses, 0 unknown
// AMD-LABEL: gpu.launch in @padded
// AMD: worst: 1-way
func.func @padded(%A: memref<100x90xf32>, %B: memref<90x100xf32>) {
  ext.compute [#ext.axis<"i", spatial, 90>, #ext.axis<"j", spatial, 100>]
      ins(%A : memref<100x90xf32>) outs(%B : memref<90x100xf32>)
      maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 32],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

// CHECK: remark: conflict-free
// CHECK-SAME: xor
// CHECK-LABEL: ext-gpu-bank-conflicts: gpu.launch in @swizzled
// CHECK-NEXT: n-way
// CHECK-COUNT-4:     1          1         0  memref.store
// CHECK-COUNT-4:     1          1         0  memref.load
// CHECK-NEXT: worst: 1-way, 8 accesses, 0 unknown
// AMD-LABEL: gpu.launch in @swizzled
// AMD: worst: 1-way
func.func @swizzled(%A: memref<100x90xf32>, %B: memref<90x100xf32>) {
  ext.compute [#ext.axis<"i", spatial, 90>, #ext.axis<"j", spatial, 100>]
      ins(%A : memref<100x90xf32>) outs(%B : memref<90x100xf32>)
      maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 32],
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>>]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}
