// RUN: ext-opt %s --split-input-file --ext-apply-schedule="chip=sm_90" --verify-diagnostics
// mma schedules the chip cannot run, and `auto` where no instruction fits.

func.func @mfma_on_nvidia(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{mma #ext.mma<mfma_32x32x8> does not exist on chip sm_90; mma = auto picks the chip's instruction}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 64, 1],
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

func.func @auto_f32_on_nvidia(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{mma = auto does not round f32 inputs to tf32; name #ext.mma<m16n8k8> to accept tf32 products}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = auto, warps = [2, 2], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @auto_not_a_product(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  // expected-error @+1 {{mma = auto: the body is not a product under a sum combiner (C += A * B), which is what matrix instructions compute}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = auto, warps = [2, 2], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.addf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
