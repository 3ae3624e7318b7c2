// `tma = true`: the k-loop's tiles are loaded by the Tensor Memory
// Accelerator. The host builds a tensor map per cached input before the
// kernel (128-byte swizzle, zero fill out of bounds); one thread per CTA
// issues each k-step's bulk tensor copies, which complete on the stage's
// mbarrier (arrive.expect_tx), and every thread waits on it at the stage's
// phase (try_wait.parity). The MMAs stay in flight (wait_group 1) and the
// copies run stages - 2 ahead. 200x136x712: ragged M, N and K (11 k-steps,
// the last 8 deep) on 2, 3 and 4 stages, bf16, Stream-K (whose CTAs run
// several units: the mbarriers are invalidated after each and initialized
// again).
//
// The output staged in shared memory goes out by one bulk tensor store
// (fence.proxy.async, a CTA barrier, one thread's cp.async.bulk.tensor and
// wait_group.read), clipped at the ragged edge.
// RUN: sed -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2>]>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s --check-prefix=STORED
// STORED: [0]
// RUN: sed -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2>]>/' %s | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=BULK
// BULK: fence.proxy.async.shared::cta;
// BULK-NEXT: bar.sync {{[[:space:]]*}}0;
// BULK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
//
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" | FileCheck %s --check-prefix=TILE
// TILE-LABEL: func.func @gemm_f16
// TILE: nvgpu.tma.create.descriptor {{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero
// TILE: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b
// TILE: ext.kernel
// TILE: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// TILE-COUNT-3: nvgpu.mbarrier.init
// TILE: gpu.barrier
// TILE: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c24576
// TILE-COUNT-2: nvgpu.tma.async.load
// TILE-NOT: ext.copy
// TILE: scf.for
// TILE: gpu.barrier
// TILE: nvgpu.mbarrier.arrive.expect_tx
// TILE-COUNT-2: nvgpu.tma.async.load
// TILE: nvgpu.mbarrier.try_wait.parity
// TILE: ext.tile_compute
// TILE: arith.xori
// TILE: } {ext.mma_in_flight}
// TILE: gpu.barrier
// TILE-COUNT-3: nvvm.mbarrier.inval
//
// RUN: ext-run --chip=sm_90a %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --emu-schedule=round-robin %s | FileCheck %s
// RUN: sed -e 's/stages = 3,/stages = 4,/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/stages = 3,/stages = 2,/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/xf16/xbf16/g' -e 's/: f16/: bf16/g' -e 's/to f16/to bf16/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 4>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// CHECK: [0]
//
// Copies one step further ahead than MMAs in flight allow: the copy is
// issued into a stage the previous step's group still reads. In lock step
// (as a GPU's warps run) the group is in flight at the issue; with threads
// apart (seed 0) other threads' waits may have retired it, but nothing
// orders the issuing thread after them.
// RUN: not ext-run --chip=sm_90a --weaken-async-wait --emu-schedule=round-robin %s 2>&1 | FileCheck %s --check-prefix=WEAK
// WEAK: (bulk tensor copy of input {{[01]}} into shared memory) issues a bulk tensor copy into shared memory (workgroup byte {{[0-9]+}}) that the warpgroup MMA at {{.*}} reads while its group is in flight
// RUN: not ext-run --chip=sm_90a --weaken-async-wait %s 2>&1 | FileCheck %s --check-prefix=WEAK0
// WEAK0: (bulk tensor copy of input {{[01]}} into shared memory) issues a bulk tensor copy into shared memory (workgroup byte {{[0-9]+}}) that the warpgroup MMA at {{.*}} reads: another thread's wait retired its group, but nothing orders this write after that wait
//
// An expect_tx short of the bytes the copies bring lets a phase complete
// early and leaves the next one owing bytes: the wait is reported as a hang.
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" 2>/dev/null | sed 's/constant 24576 :/constant 16384 :/' | env EXT_EMU_SPIN_LIMIT=100000 not ext-run --chip=sm_90a - 2>&1 | FileCheck %s --check-prefix=TX
// TX: it waits for the mbarrier at workgroup byte {{[0-9]+}} to complete its phase of parity

// ext's host code for a GPU does not build tensor maps yet: refused, not run
// with maps of host memory.
// RUN: not ext-opt %s --ext-gpu-host-pipeline="target=nvvm chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: error: 'gpu.launch_func' op passes a TMA tensor map (a schedule with tma = true); running it on a GPU from ext's host code is not supported yet

// The mbarriers' static words push the tiles to the next 1024 bytes: the
// resource check counts them (the wgmma example at 5 stages is over).
// RUN: sed 's/stages = 4, tma = true/stages = 5, tma = true/' %ext_src/examples/kernels/gemm_f16_wgmma.mlir | not ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: uses 246784 bytes (241.0 KB) of shared memory per block (1024 bytes (1.0 KB) of it mbarriers and the tiles' alignment after them); sm_90a allows at most 232448 bytes

// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX: mbarrier.init.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX-NEXT: wgmma.wait_group.sync.aligned 1
// PTX: wgmma.wait_group.sync.aligned 0
// PTX: mbarrier.inval.shared.b64
// PTX-NOT: cp.async.cg
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// PTXAS-NOT: C7510
// PTXAS: 0 bytes spill stores
// PTXAS-NOT: C7510

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_f16(%A: memref<200x712xf16>, %B: memref<712x136xf16>, %C: memref<200x136xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 136>,
               #ext.axis<"k", reduce, 712>]
      ins(%A, %B : memref<200x712xf16>, memref<712x136xf16>) outs(%C : memref<200x136xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true,
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

func.func @reference(%A: memref<200x712xf16>, %B: memref<712x136xf16>, %C: memref<200x136xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 136>,
               #ext.axis<"k", reduce, 712>]
      ins(%A, %B : memref<200x712xf16>, memref<712x136xf16>) outs(%C : memref<200x136xf32>)
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
  %A = memref.alloc() : memref<200x712xf16>
  %B = memref.alloc() : memref<712x136xf16>
  %C = memref.alloc() : memref<200x136xf32>
  %R = memref.alloc() : memref<200x136xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 712>]
      outs(%A : memref<200x712xf16>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  ext.compute [#ext.axis<"k", spatial, 712>, #ext.axis<"j", spatial, 136>]
      outs(%B : memref<712x136xf16>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  call @gemm_f16(%A, %B, %C) : (memref<200x712xf16>, memref<712x136xf16>, memref<200x136xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x712xf16>, memref<712x136xf16>, memref<200x136xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 200>, #ext.axis<"j", reduce, 136>]
      ins(%C, %R : memref<200x136xf32>, memref<200x136xf32>) outs(%err : memref<f32>)
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
