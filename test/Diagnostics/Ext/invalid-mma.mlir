// RUN: ext-opt %s --split-input-file --verify-diagnostics
// mma schedules that do not fit their compute: one concern per split.

func.func @tile_not_multiple(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{schedule: mma layout: tile dimension #1 of size 48 is not a multiple of 2 warps x 32 (the instruction's N)}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 48, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        mma = #ext.mma<mfma_32x32x8>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @k_not_multiple(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{schedule: tile size 24 of reduce axis 'k' is not a multiple of the instruction's K = 16 (#ext.mma<m16n8k16>)}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 24], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @threads_not_warps(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{schedule: mma layout: 256 threads, but warps = [2, 2] of 32 lanes need 128}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @wrong_input_type(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{schedule: #ext.mma<m16n8k16> takes f16 or bf16 inputs, not 'f32'}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @f16_accumulator(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf16>) {
  // expected-error @+1 {{schedule: #ext.mma<mfma_16x16x16> accumulates in f32, not 'f16'}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf16>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 64, 1],
        mma = #ext.mma<mfma_16x16x16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %p = arith.mulf %a, %b : f16
    ext.yield %p : f16
  }
  return
}

// -----

func.func @uncached(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{schedule: mma reads its operands from shared memory: cache every input}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2], cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @not_a_gemm(%A: memref<200x100xf16>, %C: memref<200xf32>) {
  // expected-error @+1 {{schedule: mma needs two spatial axes (M, N) and one reduce axis (K); the compute has 1 and 1}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", reduce, 100>]
      ins(%A : memref<200x100xf16>) outs(%C : memref<200xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [128, 32], blocks = ["i"], threads = [128, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2], cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%a: f16):
    %a32 = arith.extf %a : f16 to f32
    ext.yield %a32 : f32
  }
  return
}

// -----

func.func @mma_without_warps(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      // expected-error @+1 {{schedule with mma needs warps = [WM, WN]}}
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = auto, cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @mma_and_layout(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      // expected-error @+1 {{schedule gives both layout and mma; an mma schedule's layout is the instruction's}}
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        layout = #ext.cyclic, mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

// expected-error @+1 {{mma layout: 'auto' names no instruction; give one (m16n8k16, m16n8k8, mfma_32x32x8, mfma_16x16x16, mfma_32x32x2, wgmma_k16)}}
func.func private @auto_layout() attributes {l = #ext.mma<auto, warps = [2, 2]>}
