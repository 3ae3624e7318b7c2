// RUN: not ext-opt %s --split-input-file --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>&1 | FileCheck %s
// #ext.mma<wgmma_k16> schedules whose warps or shared tiles wgmma cannot
// take: each is an error naming what to change.

// -----

// CHECK: error: {{.*}}wgmma_k16 needs warps = [WM, 1] with WM a multiple of 4 and 16 rows per warp (tile M = 16 WM); got warps = [2, 4] for M = 128
func.func @case0(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [2, 4], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}


// -----

// CHECK: error: {{.*}}reads A through a wgmma matrix descriptor: its shared tile must be cached with a swizzle of 32, 64 or 128 bytes
func.func @case1(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 128, offset = 72>]>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}


// -----

// CHECK: error: {{.*}}reads A through a wgmma matrix descriptor: its shared tile has rows of 128 bytes swizzled by #ext.swizzle<bits = 2, base = 3, shift = 3>
func.func @case2(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 2, base = 3, shift = 3>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}


// -----

// CHECK: error: {{.*}}reads B {{.*}}rows of 256 bytes {{.*}}(a wider tile is column panels of W bytes: `panel = W / element bytes` in the swizzle)
func.func @case3(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 128, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}


// -----

// CHECK: error: {{.*}}wgmma_k16 computes N = 8..256 in steps of 8 per warpgroup; the tile's N is 288
func.func @case4(%A: memref<200x100xf16>, %B: memref<100x300xf16>, %C: memref<200x300xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 300>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x300xf16>) outs(%C : memref<200x300xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 288, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

