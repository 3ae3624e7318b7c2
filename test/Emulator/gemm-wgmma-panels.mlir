// RUN: ext-run --chip=sm_90a %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --racecheck --emu-seed=8 %s | FileCheck %s
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// wgmma on tiles wider than one 128-byte swizzle row, stored as column
// panels (`panel = 64` in the swizzle): A [128][128] is two K panels of
// [128][64] (the third and fourth k16 steps start in the second panel), and
// the N-major B [128][128] two N panels of [128][64], which the descriptor's
// leading byte offset steps between: one wgmma.mma_async.m64n128k16 per
// warpgroup and k step reads both. Ragged 200x130x300, 2 stages; exact.
// CHECK: [0]
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTXAS: 0 bytes spill stores

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_f16(%A: memref<200x300xf16>, %B: memref<300x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 300>]
      ins(%A, %B : memref<200x300xf16>, memref<300x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 128, 128], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 2,
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<200x300xf16>, %B: memref<300x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 300>]
      ins(%A, %B : memref<200x300xf16>, memref<300x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<200x300xf16>
  %B = memref.alloc() : memref<300x130xf16>
  %C = memref.alloc() : memref<200x130xf32>
  %R = memref.alloc() : memref<200x130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 300>]
      outs(%A : memref<200x300xf16>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  ext.compute [#ext.axis<"k", spatial, 300>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<300x130xf16>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  call @gemm_f16(%A, %B, %C) : (memref<200x300xf16>, memref<300x130xf16>, memref<200x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x300xf16>, memref<300x130xf16>, memref<200x130xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 200>, #ext.axis<"j", reduce, 130>]
      ins(%C, %R : memref<200x130xf32>, memref<200x130xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
