// `specialize = cooperative`: a producer warpgroup joins the CTA's two
// consumer warpgroups. Its one issuing thread waits for a stage to be empty
// (an mbarrier per stage, one arrival per consumer warpgroup), then fills
// it by TMA (arrive.expect_tx on the stage's full mbarrier); the consumers
// wait for it to be full, compute on wgmma with one group in flight, and
// release it once the next step's wait_group 1 retired its MMAs. The
// producer keeps 40 registers, the consumers take 232 (setmaxnreg).
// 200x136x712 (ragged M, N, K) on 2, 3 and 4 stages, f16 and bf16; data-
// parallel, persistent, Stream-K and split-K.
//
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" | FileCheck %s --check-prefix=TILE
// TILE-LABEL: func.func @gemm_f16
// TILE: ext.kernel tiles [2, 3] iters 12 threads 384 decomposition #ext.data_parallel
// TILE: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// TILE: %[[EMPTY:.*]] = nvgpu.mbarrier.create
// TILE: ext.pipeline_base
// TILE: ext.warp_specialize producer_threads 128 full(%[[FULL]]) empty(%[[EMPTY]])
// TILE: scf.for
// TILE: nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// TILE: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c24576
// TILE-COUNT-2: nvgpu.tma.async.load
// TILE: scf.for
// TILE: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// TILE: ext.tile_compute
// TILE: nvgpu.mbarrier.arrive %[[EMPTY]]
// TILE: } {ext.mma_in_flight}
// TILE: nvgpu.mbarrier.arrive %[[EMPTY]]
// TILE-NOT: gpu.barrier
// TILE: ext.kernel_yield
//
// Each role walks the CTA's units in its own branch, after the barriers'
// one initialization.
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | FileCheck %s --check-prefix=ROLES
// ROLES: gpu.launch
// ROLES-COUNT-6: nvgpu.mbarrier.init
// ROLES: gpu.barrier
// ROLES: scf.if
// ROLES: nvvm.setmaxregister  increase 232
// ROLES: ext.tile_compute
// ROLES: } else {
// ROLES: nvvm.setmaxregister  decrease 40
// ROLES: nvgpu.tma.async.load
// ROLES: } {ext.role_threads = 256 : i64}
//
// RUN: ext-run --chip=sm_90a %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: ext-run --chip=sm_90a --emu-schedule=round-robin %s | FileCheck %s
// RUN: sed -e 's/stages = 3,/stages = 4,/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/stages = 3,/stages = 2,/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/xf16/xbf16/g' -e 's/: f16/: bf16/g' -e 's/to f16/to bf16/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// CHECK: [0]
//
// A persistent grid: each CTA walks tiles a grid apart, its pipeline's
// stages and phases running on from one tile to the next (11 k-steps per
// tile over 3 or 4 stages: a tile starts mid-round, at either phase).
// RUN: sed -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' %s | ext-opt --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | FileCheck %s --check-prefix=WALK
// WALK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2,
// WALK: scf.if
// WALK: nvvm.setmaxregister  increase 232
// WALK: scf.for
// WALK: memref.load %alloca[] : memref<index>
// WALK: ext.tile_compute
// WALK: memref.store {{.*}}, %alloca[] : memref<index>
// WALK: } else {
// WALK: nvvm.setmaxregister  decrease 40
// WALK: scf.for
// RUN: sed -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' -e 's/712/648/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' -e 's/712/648/g' -e 's/stages = 3,/stages = 4,/' %s | ext-run --chip=sm_90a --racecheck --emu-schedule=round-robin - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.persistent/' %s | ext-run --chip=sm_90a - | FileCheck %s
//
// `specialize = pingpong`: each tile (64x64 here, warps = [4, 1]) is one
// consumer warpgroup's, and the CTA's two take its persistent walk's tiles
// in turn (one's epilogue under the other's MMAs), sharing the producer's
// stages. A turn barrier per warpgroup starts a tile's main loop after the
// previous tile's: a warpgroup running ahead would wait on a stage's full
// barrier two phases early, which a parity wait takes for done.
// DEFINE: %{pp} = sed -e 's/tile = \[128, 64, 64\]/tile = [64, 64, 64]/' -e 's/threads = \[8, 32, 1\]/threads = [4, 32, 1]/' -e 's/warps = \[8, 1\]/warps = [4, 1]/' -e 's/specialize = cooperative/specialize = pingpong/' -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' %s
// RUN: %{pp} | ext-opt --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | FileCheck %s --check-prefix=PINGPONG
// PINGPONG-LABEL: func.func @gemm_f16
// PINGPONG: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c384,
// PINGPONG-COUNT-2: nvgpu.mbarrier.init %[[TURNS:[0-9]+]][%{{.*}}], %c1{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// PINGPONG: nvvm.setmaxregister  increase 232
// PINGPONG: gpu.shuffle  idx
// PINGPONG: scf.for %{{.*}} = %block_id_x to %c12 step %c2
// PINGPONG: scf.if
// PINGPONG: nvgpu.mbarrier.try_wait.parity %[[TURNS]]
// PINGPONG: scf.for
// PINGPONG: ext.tile_compute
// PINGPONG: nvgpu.mbarrier.arrive %[[TURNS]]
// PINGPONG: scf.if
// PINGPONG: ext.tile_compute
// PINGPONG: nvvm.setmaxregister  decrease 40
// PINGPONG: } {ext.role_local_ids, ext.role_threads = 128 : i64}
// RUN: %{pp} | ext-run --chip=sm_90a --racecheck | FileCheck %s
// RUN: %{pp} | ext-run --chip=sm_90a --emu-schedule=round-robin | FileCheck %s
// RUN: %{pp} | sed -e 's/stages = 3,/stages = 2,/' -e 's/grid = 2>/grid = 3>/' | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: %{pp} | sed -e 's/stages = 3,/stages = 4,/' -e 's/grid = 2>/grid = 5>/' -e 's/712/648/g' | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: %{pp} | not ext-run --chip=sm_90a --weaken-async-wait 2>&1 | FileCheck %s --check-prefix=WEAK
// RUN: %{pp} | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.pp.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.pp.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7508 --implicit-check-not=C7510 --implicit-check-not=C7520 %}
// Ping-pong without several tiles per CTA, or with two warpgroups per tile:
// refused.
// RUN: %{pp} | sed 's/#ext.persistent<grid = 2>/#ext.data_parallel/' | not ext-opt --ext-apply-schedule="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PPDP
// PPDP: error: 'ext.compute' op schedule with specialize = pingpong: its two consumer warpgroups take a CTA's tiles in turn: the decomposition must be #ext.persistent (not #ext.data_parallel, which gives a CTA one unit or splits tiles)
// RUN: sed -e 's/specialize = cooperative/specialize = pingpong/' -e 's/#ext.data_parallel/#ext.persistent/' %s | not ext-opt --ext-apply-schedule="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PPWIDE
// PPWIDE: error: 'ext.compute' op schedule with specialize = pingpong: each tile is one consumer warpgroup's: threads must make 128 (warps = [4, 1]), not 256
//
// Consumers that release a stage as soon as they issued its MMAs: the
// producer's copy lands under an MMA still in flight (lock step), or, with
// threads apart, after another thread's wait that no mbarrier ordered
// before it.
// RUN: not ext-run --chip=sm_90a --weaken-async-wait %s 2>&1 | FileCheck %s --check-prefix=WEAK
// WEAK: (bulk tensor copy of input {{[01]}} into shared memory) issues a bulk tensor copy into shared memory (workgroup byte {{[0-9]+}}) that the warpgroup MMA at {{.*}} reads
// RUN: not ext-run --chip=sm_90a --weaken-async-wait --emu-schedule=round-robin %s 2>&1 | FileCheck %s --check-prefix=WEAK
//
// A producer that does not wait for the consumers to empty a stage refills
// it while its phase is still owed: reported.
// RUN: ext-opt %s --ext-apply-schedule="chip=sm_90a" | sed '/ext.warp_specialize/,/scf.yield/{/try_wait.parity/d}' | not ext-run --chip=sm_90a - 2>&1 | FileCheck %s --check-prefix=NOEMPTY
// NOEMPTY: mbarrier.arrive at {{.*}} arrives more times than the barrier's 1 per phase
//
// Decompositions that split the reduction: Stream-K's units start and end
// anywhere in a tile (the pipeline runs on across them), and the fixup's
// barriers are the consumers' own (bar.sync 1, 256), which the producer
// never reaches.
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 4>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 5>/' -e 's/712/648/g' -e 's/stages = 3,/stages = 4,/' %s | ext-run --chip=sm_90a --emu-schedule=round-robin - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k_2tile<sms = 4>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.split_k<slices = 3>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 4>/' %s | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=FIXUP
// FIXUP: bar.sync {{[[:space:]]*}}0;
// FIXUP: setmaxnreg.inc
// FIXUP: bar.sync {{[[:space:]]*}}1, 256;
// FIXUP: setmaxnreg.dec
// FIXUP-NOT: bar.sync
//
// An output staged in shared memory (#ext.cache on it): the epilogue's
// barriers are the consumers' own (bar.sync 1, 256), not the CTA's, which
// the producer never reaches (the emulator reported a deadlock). With
// tma = true the staged tile goes out by one bulk tensor store: the
// writers fence for the async proxy, one thread issues it and waits for
// its reads before anyone rewrites the tile (the next tile's epilogue);
// the copy engine clips the ragged edge. With ping-pong the two
// warpgroups' epilogues would share the staged tile at once: refused.
// DEFINE: %{stage} = sed -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2>]>/' %s
// RUN: %{stage} | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: %{stage} | sed -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' -e 's/712/648/g' | ext-run --chip=sm_90a --racecheck --emu-seed=2 - | FileCheck %s
// RUN: %{stage} | sed -e 's/#ext.data_parallel/#ext.stream_k<grid = 4>/' | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: %{stage} | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.stage.ptx
// RUN: FileCheck %s --check-prefix=STAGE < %t.stage.ptx
// STAGE: bar.sync {{[[:space:]]*}}0;
// STAGE: setmaxnreg.inc
// STAGE: fence.proxy.async.shared::cta;
// STAGE-NEXT: bar.sync {{[[:space:]]*}}1, 256;
// STAGE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// STAGE-NEXT: cp.async.bulk.commit_group;
// STAGE-NEXT: cp.async.bulk.wait_group.read {{[[:space:]]*}}0;
// STAGE: bar.sync {{[[:space:]]*}}1, 256;
// STAGE-NOT: bar.sync {{[[:space:]]*}}0;
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.stage.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7508 --implicit-check-not=C7510 %}
// A tile padded by storage_align is no TMA box: the threads store it.
// RUN: sed -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2, align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]>]>/' %s | ext-opt --ext-apply-schedule="chip=sm_90a report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PADDED
// PADDED: remark: output 0 is stored by the threads, not the copy engine: its shared tile is padded (storage_align); the copy engine reads dense boxes
// RUN: sed -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2, align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]>]>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: %{stage} | sed -e 's/tile = \[128, 64, 64\]/tile = [64, 64, 64]/' -e 's/threads = \[8, 32, 1\]/threads = [4, 32, 1]/' -e 's/warps = \[8, 1\]/warps = [4, 1]/' -e 's/specialize = cooperative/specialize = pingpong/' -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' | not ext-opt --ext-apply-schedule="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PPSTAGE
// PPSTAGE: error: 'ext.compute' op schedule with specialize = pingpong: its two consumer warpgroups' epilogues run at once and would share the shared-memory tile of a cached output
//
// Parallel split-K reduces in a second launch, which has no producer part.
// RUN: sed -e 's/#ext.data_parallel/#ext.split_k<slices = 2, mode = parallel>/' %s | not ext-opt --ext-apply-schedule="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: error: 'ext.compute' op schedule with specialize = cooperative: decomposition #ext.split_k<slices = 2, mode = parallel> reduces the slices in a second launch, which has no producer part (use mode = serial, Stream-K or a whole-tile decomposition)
//
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .maxntid 384, 1, 1
// PTX-NEXT: .minnctapersm 1
// PTX: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// PTX: mbarrier.arrive.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7508 --implicit-check-not=C7510 %}
// PTXAS: 0 bytes spill stores
// PTXAS: Used 168 registers

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_f16(%A: memref<200x712xf16>, %B: memref<712x136xf16>, %C: memref<200x136xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 136>,
               #ext.axis<"k", reduce, 712>]
      ins(%A, %B : memref<200x712xf16>, memref<712x136xf16>) outs(%C : memref<200x136xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 64, 64], blocks = ["i", "j"], threads = [8, 32, 1],
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true, specialize = cooperative,
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
