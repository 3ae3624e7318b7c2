// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule
// Schedules with `tma = true` whose tiles the Tensor Memory Accelerator
// cannot load as ext lays them out are refused at the compute, saying why;
// so are schedules that cannot pipeline them.

module attributes {ext.target = #ext.target<chip = "sm_80">} {
func.func @ampere(%A: memref<256x256xf16>, %B: memref<256x128xf16>, %C: memref<256x128xf32>) {
  // expected-error @below {{schedule with tma = true: the Tensor Memory Accelerator needs an NVIDIA chip of sm_90 or later, not sm_80}}
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<256x256xf16>, memref<256x128xf16>) outs(%C : memref<256x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [4, 2], vector = 8, stages = 3, tma = true,
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
}

// -----

module attributes {ext.target = #ext.target<chip = "sm_90a">} {
func.func @rows_not_16_bytes(%A: memref<256x100xf16>, %B: memref<100x128xf16>, %C: memref<256x128xf32>) {
  // expected-error @below {{schedule with tma = true: input 0 has rows of 200 bytes; a tensor map's row stride must be a multiple of 16 bytes}}
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<256x100xf16>, memref<100x128xf16>) outs(%C : memref<256x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true,
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
}

// -----

module attributes {ext.target = #ext.target<chip = "sm_90a">} {
func.func @padded_tile(%A: memref<256x256xf16>, %B: memref<256x128xf16>, %C: memref<256x128xf32>) {
  // expected-error @below {{schedule with tma = true: input 0 is cached with storage_align padding; the copy engine writes dense boxes}}
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<256x256xf16>, memref<256x128xf16>) outs(%C : memref<256x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true,
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 64, offset = 8>]>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
}

// -----

module attributes {ext.target = #ext.target<chip = "sm_90a">} {
func.func @swizzle_not_the_rows(%A: memref<256x256xf16>, %B: memref<256x128xf16>, %C: memref<256x128xf32>) {
  // expected-error @below {{schedule with tma = true: input 1 has a shared tile the copy engine cannot write: its swizzle is not one the copy engine applies}}
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<256x256xf16>, memref<256x128xf16>) outs(%C : memref<256x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 2, base = 3, shift = 3>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
}

// -----

// expected-error @below {{schedule with tma = true needs stages >= 2}}
#one_stage = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], stages = 1, tma = true>

// -----

// expected-error @below {{schedule gives both tma = true and async = false}}
#registers = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], stages = 2, async = false, tma = true>

// -----

// expected-error @below {{tma must be 'true' or 'false', got 'yes'}}
#spelling = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], stages = 2, tma = yes>
