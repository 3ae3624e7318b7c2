// `cluster = [CM, CN]`: thread block clusters of CM x CN CTAs over the row
// and column tiles, sharing the k-loop's tiles by TMA multicast. B's tile
// (it does not move with the row tiles) is loaded by a cluster column's
// first CTA into the shared memory of the column's CM CTAs, A's across a
// cluster row's CN CTAs; each consumer warpgroup releases a stage on its
// own CTA's empty mbarrier and, through distributed shared memory (mapa),
// on those of the CTAs that write into it. 200x136x712 over 128x64 tiles
// is a 2x3 tile grid: with [2, 2] clusters the last cluster column has
// tiles past the grid's edge, which compute zeros and store nothing.
//
// RUN: sed -e 's/CLUSTER/[2, 1]/' %s | ext-opt --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | FileCheck %s --check-prefix=K21
// K21-LABEL: func.func @gemm_f16
// K21: gpu.launch clusters({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) blocks({{.*}}) in (%{{.*}} = %c6,
// Empty barriers: 2 consumer warpgroups in each of the column's 2 CTAs.
// K21-COUNT-3: nvgpu.mbarrier.init %{{.*}}, %c4
// K21: nvvm.fence.mbarrier.init
// K21: nvvm.cluster.arrive {aligned}
// K21-NEXT: nvvm.cluster.wait {aligned}
// K21: nvvm.setmaxregister  increase 232
// K21: nvgpu.mbarrier.arrive %{{.*}}[%{{.*}}]
// K21: %[[PEER:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// K21-NEXT: nvvm.mbarrier.arrive %[[PEER]] : !llvm.ptr<7>
// K21: nvvm.setmaxregister  decrease 40
// K21: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c24576
// A's tile is the CTA's own; B's, multicast by the column's first CTA.
// K21: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<128x64xf16, 3>
// K21: scf.if
// K21: nvgpu.tma.async.load %{{.*}} to %{{.*}} multicast_mask = %{{.*}} : <tensor = memref<64x64xf16, 3>
// K21: } {ext.role_threads = 256 : i64}
// K21-NEXT: nvvm.cluster.arrive {aligned}
// K21-NEXT: nvvm.cluster.wait {aligned}
//
// RUN: sed -e 's/CLUSTER/[2, 1]/' %s | ext-run --chip=sm_90a | FileCheck %s
// RUN: sed -e 's/CLUSTER/[2, 1]/' %s | ext-run --chip=sm_90a --racecheck --emu-seed=5 - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[1, 2]/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[2, 2]/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[2, 2]/' %s | ext-run --chip=sm_90a --emu-schedule=round-robin - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[1, 3]/' -e 's/stages = 3,/stages = 4,/' -e 's/712/648/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[2, 2]/' -e 's/stages = 3,/stages = 2,/' -e 's/xf16/xbf16/g' -e 's/: f16/: bf16/g' -e 's/to f16/to bf16/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// The output staged in shared memory and stored by the copy engine (a bulk
// tensor store per CTA), tiles past the grid's edge storing nothing.
// RUN: sed -e 's/CLUSTER/[2, 2]/' -e 's/shift = 3>>\]>/shift = 3>>, #ext.cache<operand = 2>]>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// CHECK: [0]
//
// A persistent grid of clusters: `grid` counts clusters, which walk the
// cluster tiles (11 k-steps per tile over 4 stages: tiles start mid-round).
// RUN: sed -e 's/CLUSTER/[2, 1]/' -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' -e 's/stages = 3,/stages = 4,/' -e 's/712/648/g' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[1, 2]/' -e 's/#ext.data_parallel/#ext.persistent<grid = 1>/' %s | ext-run --chip=sm_90a --emu-schedule=round-robin - | FileCheck %s
// RUN: sed -e 's/CLUSTER/[2, 1]/' -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' %s | ext-opt --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | FileCheck %s --check-prefix=WALK
// WALK: gpu.launch clusters({{.*}}) in (%{{.*}} = %c2{{(_[0-9]+)?}}, %{{.*}} = %c1, %{{.*}} = %c1) blocks({{.*}}) in (%{{.*}} = %c4,
//
// Ping-pong over clusters: each CTA's two consumer warpgroups take its
// tiles in turn, each releasing its stages in the cluster.
// RUN: sed -e 's/CLUSTER/[2, 1]/' -e 's/tile = \[128, 64, 64\]/tile = [64, 64, 64]/' -e 's/threads = \[8, 32, 1\]/threads = [4, 32, 1]/' -e 's/warps = \[8, 1\]/warps = [4, 1]/' -e 's/specialize = cooperative/specialize = pingpong/' -e 's/#ext.data_parallel/#ext.persistent<grid = 2>/' %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
//
// Consumers that do not release their stages in the peer CTAs: the
// multicasting producer waits on its empty barrier forever.
// RUN: sed -e 's/CLUSTER/[2, 1]/' %s | ext-opt --ext-apply-schedule="chip=sm_90a" | sed '/nvvm.mbarrier.arrive/d' | env EXT_EMU_SPIN_LIMIT=100000 not ext-run --chip=sm_90a - 2>&1 | FileCheck %s --check-prefix=NOPEER
// NOPEER: no progress after 100000 consecutive yields
// NOPEER-SAME: (rank {{[01]}} of cluster
// NOPEER-SAME: it waits for the mbarrier at workgroup byte {{[0-9]+}} to complete its phase of parity
//
// Without the cluster barrier before exit, a CTA that finishes first is
// still arrived on by its peer's consumers.
// RUN: sed -e 's/CLUSTER/[2, 1]/' %s | ext-opt --ext-apply-schedule="chip=sm_90a" --ext-kernel-to-gpu | sed -e '/ext.role_threads/,/nvvm.cluster.wait/{/nvvm.cluster/d}' | not ext-run --chip=sm_90a - 2>&1 | FileCheck %s --check-prefix=NOEXIT
// NOEXIT: cluster barrier
//
// Stream-K gives the cluster's CTAs different k-ranges: refused.
// RUN: sed -e 's/CLUSTER/[2, 1]/' -e 's/#ext.data_parallel/#ext.stream_k<grid = 4>/' %s | not ext-opt --ext-apply-schedule="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SK
// SK: error: 'ext.compute' op schedule with cluster = [2, 1]: the CTAs of a cluster share every k-step's tiles, so the decomposition must give each the same k-range (#ext.data_parallel or #ext.persistent), not #ext.stream_k<grid = 4,
//
// RUN: sed -e 's/CLUSTER/[2, 2]/' %s | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive.aligned;
// PTX: barrier.cluster.wait.aligned;
// PTX: %cluster_ctaid.x
// PTX: mapa.shared::cluster.u32
// The remote release: PTX's default semantics (release at the CTA's scope),
// one SYNCS; `.release.cluster` cost two MEMBARs and two error barriers.
// PTX-NOT: mbarrier.arrive.release.cluster
// PTX: mbarrier.arrive.shared::cluster.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
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
        mma = #ext.mma<wgmma_k16>, warps = [8, 1], vector = 8, stages = 3, tma = true, specialize = cooperative, cluster = CLUSTER,
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
