// Decompositions planned at launch: one scheduled GEMM over a dynamic M per
// decomposition (serial and parallel split-K, stream_k_2tile on 3 SMs, and
// auto on 4 SMs, which asks ext's launch planner at every call). The host
// computes the grid, the Stream-K region and the workspace from M; the
// kernel reads them as arguments. @main runs every one at M = 1, 17, 33, 70
// and 100 (5 to 20 tiles of 7 iterations) against the unscheduled
// reference: integer data, so every error is exactly 0.
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-apply-schedule=report=true %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: ext-opt --ext-apply-schedule --ext-kernel-to-gpu %s | FileCheck %s --check-prefix=LAUNCH
// RUN: env EXT_REPORT_LAUNCH_PLANS=1 ext-run %s 2> %t.plans | FileCheck %s
// The persistent grid, planned at launch too: min(tiles, 3) CTAs walking
// the tiles.
// RUN: sed 's/#ext.stream_k_2tile<sms = 3>/#ext.persistent<sms = 3>/' %s | ext-run - | FileCheck %s
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t.plans

// What ext-apply-schedule leaves to the launch, and with what.
// REPORT: remark: decomposition #ext.split_k<slices = 3> planned at launch for the tile count known then, 7 iterations per tile
// REPORT: remark: decomposition #ext.auto<sms = 4> planned at launch for the tile count known then, 7 iterations per tile, on 4 SMs; chosen at launch among data_parallel, stream_k, stream_k_dp and stream_k_2tile with a fixup costing 0.1875 iterations

// KERNEL-LABEL: func.func @gemm_split_k
// KERNEL: ext.kernel tiles [%{{.*}}, 5] iters 7 threads 256 decomposition #ext.split_k<slices = 3>
// KERNEL-SAME: fixup_cost = 1.875000e-01
// KERNEL-LABEL: func.func @gemm_auto
// KERNEL: decomposition #ext.auto<sms = 4>

// The launch planner's entry, declared once.
// LAUNCH: func.func private @__ext_choose_decomposition(i64, i64, i64, f64) -> i64
// Split-K at launch: 3 CTAs per tile, a workspace of 2 partial tiles per
// tile, sized on the host.
// LAUNCH-LABEL: func.func @gemm_split_k
// LAUNCH: %[[ROWS:.*]] = arith.ceildivui
// LAUNCH: %[[TILES:.*]] = arith.muli %[[ROWS]], %c5
// LAUNCH: %[[GRID:.*]] = arith.muli %[[TILES]], %c3
// LAUNCH: %[[SLOTS:.*]] = arith.muli %[[TILES]], %c2
// LAUNCH: scf.if
// LAUNCH: gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xi8>
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// LAUNCH: memref.view %{{.*}}[%{{.*}}][%[[SLOTS]]] : memref<?xi8> to memref<?xi32>
// LAUNCH: } else {
// LAUNCH: cf.assert %{{.*}}, "ext.kernel with decomposition #ext.split_k<slices = 3>: more than 2^31 - 1 tiles at launch" {ext.guarded}
// Parallel split-K: a second launch of one CTA per tile.
// LAUNCH-LABEL: func.func @gemm_split_k_parallel
// LAUNCH: %[[TILES2:.*]] = arith.muli %{{.*}}, %c5
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[TILES2]],
// auto: the planner's choice selects among the candidates' numbers.
// LAUNCH-LABEL: func.func @gemm_auto
// LAUNCH: %[[CHOICE:.*]] = func.call @__ext_choose_decomposition(%{{.*}}, %c7_i64, %c4_i64, %cst{{.*}}) : (i64, i64, i64, f64) -> i64
// LAUNCH: arith.cmpi sge, %[[CHOICE]], %c0_i64
// LAUNCH: arith.cmpi eq, %[[CHOICE]], %c1_i64

// Every decomposition, every M: max |C - reference| = 0.
// CHECK-COUNT-20: [0]
// CHECK-NOT: [{{[1-9]}}
// auto on 4 SMs chooses by the tile count: Stream-K for 5, 10 and 15 tiles,
// data-parallel for 20 (five full waves, no fixup).
// PLAN: ext: #ext.auto at launch: stream_k for 5 tiles of 7 iterations on 4 SMs (grid 4, predicted utilization 0.933)
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 5 tiles
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 10 tiles
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 15 tiles
// PLAN-NEXT: ext: #ext.auto at launch: data_parallel for 20 tiles of 7 iterations on 4 SMs (grid 20, predicted utilization 1.000)

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_split_k(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.split_k<slices = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_split_k_parallel(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.split_k<slices = 2, mode = parallel>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_2tile(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.stream_k_2tile<sms = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_auto(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.auto<sms = 4>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// Prints max |C - R|.
func.func @report(%C: memref<?x130xf32>, %R: memref<?x130xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, ?>, #ext.axis<"j", reduce, 130>]
      ins(%C, %R : memref<?x130xf32>, memref<?x130xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %err : memref<f32>
  return
}

// A[i, k] = ((3i + 5k) mod 11) - 5; runs every kernel at M = %m.
func.func @check(%m: index, %B: memref<97x130xf32>) {
  %A = memref.alloc(%m) : memref<?x97xf32>
  %C = memref.alloc(%m) : memref<?x130xf32>
  %R = memref.alloc(%m) : memref<?x130xf32>
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", spatial, 97>]
      outs(%A : memref<?x97xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @reference(%A, %B, %R) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @gemm_split_k(%A, %B, %C) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @report(%C, %R) : (memref<?x130xf32>, memref<?x130xf32>) -> ()
  call @gemm_split_k_parallel(%A, %B, %C) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @report(%C, %R) : (memref<?x130xf32>, memref<?x130xf32>) -> ()
  call @gemm_2tile(%A, %B, %C) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @report(%C, %R) : (memref<?x130xf32>, memref<?x130xf32>) -> ()
  call @gemm_auto(%A, %B, %C) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @report(%C, %R) : (memref<?x130xf32>, memref<?x130xf32>) -> ()
  memref.dealloc %A : memref<?x97xf32>
  memref.dealloc %C : memref<?x130xf32>
  memref.dealloc %R : memref<?x130xf32>
  return
}

func.func @main() {
  %B = memref.alloc() : memref<97x130xf32>
  ext.compute [#ext.axis<"k", spatial, 97>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<97x130xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  %c1 = arith.constant 1 : index
  call @check(%c1, %B) : (index, memref<97x130xf32>) -> ()
  %c17 = arith.constant 17 : index
  call @check(%c17, %B) : (index, memref<97x130xf32>) -> ()
  %c33 = arith.constant 33 : index
  call @check(%c33, %B) : (index, memref<97x130xf32>) -> ()
  %c70 = arith.constant 70 : index
  call @check(%c70, %B) : (index, memref<97x130xf32>) -> ()
  %c100 = arith.constant 100 : index
  call @check(%c100, %B) : (index, memref<97x130xf32>) -> ()
  memref.dealloc %B : memref<97x130xf32>
  return
}
