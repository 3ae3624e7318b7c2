// Passes read the chip from the module's #ext.target when they are given
// none: here an RDNA chip (gfx1100: 32-lane waves, no MFMA, LDS banks ext
// does not model), whose facts come from the one chip model.
// RUN: ext-opt %s --split-input-file --ext-apply-schedule --verify-diagnostics
// RUN: not ext-opt %s --split-input-file --ext-gpu-bank-conflicts 2>&1 | FileCheck %s --check-prefix=BANKS

// BANKS: ext-gpu-bank-conflicts: no bank model for chip 'gfx1100'
module attributes {ext.target = #ext.target<chip = "gfx1100">} {
func.func @auto_on_rdna(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{mma = auto: chip gfx1100 has no matrix instruction ext knows for 'f16' inputs}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = auto, warps = [2, 2], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
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

module attributes {ext.target = #ext.target<chip = "gfx1100">} {
func.func @mfma_on_rdna(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{mma #ext.mma<mfma_32x32x8> does not exist on chip gfx1100}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%C : memref<64x64xf32>)
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
}
