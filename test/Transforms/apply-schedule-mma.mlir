// RUN: ext-opt %s --ext-apply-schedule=chip=gfx942 | FileCheck %s --check-prefix=AUTO

// mma = auto with the chip: f16 on gfx942 with 32-divisible warp tiles is
// mfma_32x32x8.
// AUTO-LABEL: func @auto_amd
// AUTO:         ext.alloc_fragment threads [4, 64] layout(#ext.mma<mfma_32x32x8, warps = [2, 2]>)
func.func @auto_amd(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 64, 1],
        mma = auto, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
