// A pipelined wgmma k-loop keeps one group of MMAs in flight: step k's
// wgmmas are committed and left running (wgmma.wait_group 1) while step k+1
// waits for its stage and issues; the accumulators are the loop's
// iter_args, and the last group is waited for after the loop. The copies
// run stages - 2 steps ahead, so none lands in a stage an MMA in flight
// still reads. 200x130x700 (11 k-steps, the last ragged) on 3 and 4
// stages, bf16, and Stream-K (whose units start and end mid-tile).
//
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" | FileCheck %s --check-prefix=TILE
// TILE-LABEL: func.func @gemm_f16
// TILE-COUNT-2: ext.copy {{.*}} staged async
// TILE-NEXT: ext.copy_commit
// TILE-NOT: ext.copy {{.*}} staged async
// TILE: scf.for
// TILE: ext.copy_wait pending = 0
// TILE: ext.tile_compute
// TILE: } {ext.mma_in_flight}
//
// RUN: ext-run --chip=sm_90a %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: sed -e 's/stages = 3,/stages = 4,/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/xf16/xbf16/g' -e 's/: f16/: bf16/g' -e 's/to f16/to bf16/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 3>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// CHECK: [0]
//
// Copying one step further ahead (stages - 1, right without MMAs in
// flight) writes a stage the previous step's group still reads: a copy
// may land as soon as it is issued, so the issue is the error.
// RUN: not ext-run --chip=sm_90a --weaken-async-wait %s 2>&1 | FileCheck %s --check-prefix=WEAK
// WEAK: issues an asynchronous copy into shared memory (workgroup byte {{[0-9]+}}) that the warpgroup MMA at {{.*}} reads while its group is in flight
//
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: wgmma.fence.sync.aligned
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX-NEXT: wgmma.wait_group.sync.aligned 1
// PTX: bar.sync
// PTX: wgmma.wait_group.sync.aligned 0
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS-NOT: C7510
// PTXAS: 0 bytes spill stores
// PTXAS-NOT: C7510
//
// With 2 stages nothing stays in flight: wait_group 0 every step.
// RUN: sed -e 's/stages = 3,/stages = 2,/' %s | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=TWO
// TWO-NOT: wgmma.wait_group.sync.aligned 1
// TWO: wgmma.wait_group.sync.aligned 0
// TWO-NOT: wgmma.wait_group.sync.aligned 1

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_f16(%A: memref<200x700xf16>, %B: memref<700x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 700>]
      ins(%A, %B : memref<200x700xf16>, memref<700x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3,
        decomposition = #ext.data_parallel,
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

func.func @reference(%A: memref<200x700xf16>, %B: memref<700x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 700>]
      ins(%A, %B : memref<200x700xf16>, memref<700x130xf16>) outs(%C : memref<200x130xf32>)
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
  %A = memref.alloc() : memref<200x700xf16>
  %B = memref.alloc() : memref<700x130xf16>
  %C = memref.alloc() : memref<200x130xf32>
  %R = memref.alloc() : memref<200x130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 700>]
      outs(%A : memref<200x700xf16>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  ext.compute [#ext.axis<"k", spatial, 700>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<700x130xf16>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  call @gemm_f16(%A, %B, %C) : (memref<200x700xf16>, memref<700x130xf16>, memref<200x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x700xf16>, memref<700x130xf16>, memref<200x130xf32>) -> ()
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
