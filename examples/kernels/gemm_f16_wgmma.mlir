// The f16 GEMM C = A B^T on sm_90a's warpgroup MMA (wgmma), with B given
// as [N][K] (the layout of most weight matrices): 128x256 output tiles over
// two warpgroups (warps = [8, 1], 256 threads), each issuing one
// `wgmma.mma_async.m64n256k16` per 16-deep k step (64 x 256 per
// warpgroup, 128 f32 accumulators per thread), A and B read from shared
// memory through matrix descriptors. Both tiles are K-major with 128-byte
// rows (k tile 64) swizzled by Swizzle<3,3,3>, wgmma's 128-byte layout, over
// 4 stages (192 KB: dynamic shared memory) loaded by the Tensor Memory
// Accelerator (`tma = true`: a tensor map per input built on the host).
// The CTA is warp-specialized (`specialize = cooperative`): a third,
// producer warpgroup (40 registers per thread, setmaxnreg) issues each
// k-step's bulk tensor copies once the consumers released the stage
// (an empty and a full mbarrier per stage), while the two consumer
// warpgroups (232 registers) compute, each k-step's MMAs staying in flight
// while the next step waits and issues (wgmma.wait_group 1). The CTAs
// form 2x2 thread block clusters (`cluster = [2, 2]`): A's tile is loaded
// once per cluster row and B's once per cluster column, each multicast into
// the shared memory of the two CTAs that use it, so a CTA reads half its
// bytes from L2. On the ragged 200x300x104 problem the copies' zero
// fill and the epilogue's edge checks are what is tested (TMA needs rows of
// a multiple of 16 bytes: K = 104). bench/roofline models it at 4096^3;
// bench/gpu times it.
//
// @main builds the inputs from their indices, runs the scheduled GEMM,
// recomputes C with the unscheduled reference and prints max |C - reference|
// (0: small integers are exact in f16 and f32).
//
//   ext-opt gemm_f16_wgmma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90a"
//   ext-run gemm_f16_wgmma.mlir                 # the CPU emulator
//
// The module names its chip (#ext.target): wgmma exists on sm_90a only, and
// tools given no chip use the module's rather than the default sm_80.

module attributes {ext.target = #ext.target<chip = "sm_90a">} {

  func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

  func.func @gemm_f16(%A: memref<200x104xf16>, %B: memref<300x104xf16>, %C: memref<200x300xf32>) {
    ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 300>,
                 #ext.axis<"k", reduce, 104>]
        ins(%A, %B : memref<200x104xf16>, memref<300x104xf16>) outs(%C : memref<200x300xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
              affine_map<(i, j, k) -> (i, j)>]
        combiner(sum) attributes {schedule = #ext.schedule<
          tile = [128, 256, 64], blocks = ["i", "j"], threads = [8, 32, 1],
          mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 4, tma = true, specialize = cooperative,
          cluster = [2, 2],
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

  func.func @reference(%A: memref<200x104xf16>, %B: memref<300x104xf16>, %C: memref<200x300xf32>) {
    ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 300>,
                 #ext.axis<"k", reduce, 104>]
        ins(%A, %B : memref<200x104xf16>, memref<300x104xf16>) outs(%C : memref<200x300xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
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
    %A = memref.alloc() : memref<200x104xf16>
    %B = memref.alloc() : memref<300x104xf16>
    %C = memref.alloc() : memref<200x300xf32>
    %R = memref.alloc() : memref<200x300xf32>
    %err = memref.alloc() : memref<f32>
    // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
    ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 104>]
        outs(%A : memref<200x104xf16>) maps [affine_map<(i, k) -> (i, k)>] {
    ^bb0:
      %i = ext.index "i" : index
      %k = ext.index "k" : index
      %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      ext.yield %vf : f16
    }
    ext.compute [#ext.axis<"k", spatial, 104>, #ext.axis<"j", spatial, 300>]
        outs(%B : memref<300x104xf16>) maps [affine_map<(k, j) -> (j, k)>] {
    ^bb0:
      %k = ext.index "k" : index
      %j = ext.index "j" : index
      %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      ext.yield %vf : f16
    }
    call @gemm_f16(%A, %B, %C) : (memref<200x104xf16>, memref<300x104xf16>, memref<200x300xf32>) -> ()
    call @reference(%A, %B, %R) : (memref<200x104xf16>, memref<300x104xf16>, memref<200x300xf32>) -> ()
    ext.compute [#ext.axis<"i", reduce, 200>, #ext.axis<"j", reduce, 300>]
        ins(%C, %R : memref<200x300xf32>, memref<200x300xf32>) outs(%err : memref<f32>)
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

}
