// A reduce axis of dynamic extent: one build of a 40 x 48 GEMM serves every
// K. The host counts the k-steps (ceil(K / 16)) and every decomposition
// plans from them at launch; the kernel's k-loop runs to that count, and its
// ragged last step is either a full one (cached inputs: the copies' zero
// fill adds nothing to a sum of products) or peeled with the bound
// K - 16 * (steps - 1), read from the operand's size (uncached inputs, and a
// max combiner, where zero is not the identity: @dp_uncached, @pipelined_max).
// @both has dynamic M and K. @main runs each at K = 1, 16, 17, 50 and 97
// (split-K, which needs one step per slice, at K >= 17) against the
// unscheduled reference: integer data, so every error is exactly 0. Split-K
// at K = 5 is refused at launch with the check's message, never run.
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-apply-schedule=report=true %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: ext-opt --ext-apply-schedule --ext-kernel-to-gpu %s | FileCheck %s --check-prefix=LAUNCH
// RUN: env EXT_REPORT_LAUNCH_PLANS=1 ext-run %s 2> %t.plans | FileCheck %s
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t.plans
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.ones((40, 5), np.float32)); np.save('%t.b.npy', np.ones((5, 48), np.float32)); np.save('%t.c.npy', np.zeros((40, 48), np.float32))"
// RUN: not ext-run --entry=split_k --inputs=%t.a.npy,%t.b.npy,%t.c.npy %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: ext-emu: error: host check failed: decomposition #ext.split_k<slices = 2>: fewer than 2 reduce iterations per tile at launch (each slice needs one)

// REPORT: remark: decomposition #ext.data_parallel planned at launch for 9 tiles and the iterations per tile known then
// REPORT: remark: decomposition #ext.auto<sms = 4> planned at launch for 9 tiles and the iterations per tile known then, on 4 SMs
// REPORT: remark: decomposition #ext.stream_k_2tile<sms = 3> planned at launch for the tile count known then and the iterations per tile known then

// The host counts the k-steps from K and hands the count to the kernel.
// KERNEL-LABEL: func.func @dp_uncached
// KERNEL: %[[STEPS:.*]] = arith.ceildivui %{{.*}}, %c16
// KERNEL: ext.kernel tiles [3, 3] iters %[[STEPS]] threads 256
// The peeled step's bound is K - 16 * ((K - 1) / 16), from the operand.
// KERNEL: %[[KM1:.*]] = arith.subi %[[KK:dim_[0-9]+]], %{{.*}}
// KERNEL: %[[LAST:.*]] = arith.divui %[[KM1]], %{{.*}}
// KERNEL: %[[LASTK:.*]] = arith.muli %[[LAST]], %{{.*}}
// KERNEL: %[[REST:.*]] = arith.subi %[[KK]], %[[LASTK]]
// KERNEL: %[[FULL:.*]] = arith.minsi %{{.*}}, %[[LAST]]
// KERNEL: scf.for %{{.*}} = %{{.*}} to %[[FULL]] step
// KERNEL: %[[RAGGED:.*]] = arith.cmpi sgt, %{{.*}}, %[[LAST]]
// KERNEL: scf.if %[[RAGGED]]
// KERNEL: ext.tile_compute {{.*}} bounds(%{{.*}}, %{{.*}}, %[[REST]])
// With cached inputs the ragged step runs as a full one: no peeled step.
// KERNEL-LABEL: func.func @dp_cached
// KERNEL: ext.kernel tiles [3, 3] iters %{{.*}} threads 256
// KERNEL-NOT: arith.cmpi sgt
// KERNEL-LABEL: func.func @pipelined_max

// Data-parallel plans at launch though its grid is static: the k-steps are
// checked there.
// LAUNCH-LABEL: func.func @dp_uncached
// LAUNCH: cf.assert %{{.*}}, "ext.kernel with decomposition #ext.data_parallel: more than 2^31 - 1 tiles at launch" {ext.guarded}
// LAUNCH-LABEL: func.func @split_k
// LAUNCH: "decomposition #ext.split_k<slices = 2>: fewer than 2 reduce iterations per tile at launch (each slice needs one)"
// LAUNCH-LABEL: func.func @auto
// LAUNCH: %[[STEPS:.*]] = arith.ceildivui %{{.*}}, %c16
// LAUNCH: %[[STEPS64:.*]] = arith.index_cast %[[STEPS]] : index to i64
// LAUNCH: func.call @__ext_choose_decomposition(%{{.*}}, %[[STEPS64]], %c4_i64, %cst{{.*}})

// Every kernel, every K: max |C - reference| = 0 (7 kernels at K >= 17,
// 6 below).
// CHECK-COUNT-33: [0]
// CHECK-NOT: [{{[1-9]}}
// auto on 4 SMs over 9 tiles chooses by K: data-parallel while a tile is
// one step (nothing to split), Stream-K from
// two steps on.
// PLAN: ext: #ext.auto at launch: data_parallel for 9 tiles of 1 iterations on 4 SMs (grid 9, predicted utilization 0.750)
// PLAN-NEXT: ext: #ext.auto at launch: data_parallel for 9 tiles of 1 iterations
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 9 tiles of 2 iterations on 4 SMs (grid 4, predicted utilization 0.867)
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 9 tiles of 4 iterations
// PLAN-NEXT: ext: #ext.auto at launch: stream_k for 9 tiles of 7 iterations on 4 SMs (grid 4, predicted utilization 0.962)

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @dp_uncached(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        decomposition = #ext.data_parallel>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @dp_cached(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext.data_parallel>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @pipelined_max(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 3,
        decomposition = #ext.data_parallel>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.addf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @split_k(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext.split_k<slices = 2>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @stream_k(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext.stream_k<sms = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @auto(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext.auto<sms = 4>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @both(%A: memref<?x?xf32>, %B: memref<?x48xf32>, %C: memref<?x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<?x?xf32>, memref<?x48xf32>) outs(%C : memref<?x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext.stream_k_2tile<sms = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference_max(%A: memref<40x?xf32>, %B: memref<?x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<40x?xf32>, memref<?x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.addf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// Prints max |C - R|.
func.func @report(%C: memref<?x48xf32>, %R: memref<?x48xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, ?>, #ext.axis<"j", reduce, 48>]
      ins(%C, %R : memref<?x48xf32>, memref<?x48xf32>) outs(%err : memref<f32>)
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

// A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6.
func.func @fill(%A: memref<?x?xf32>, %B: memref<?x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", spatial, ?>]
      outs(%A : memref<?x?xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, ?>, #ext.axis<"j", spatial, 48>]
      outs(%B : memref<?x48xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  return
}

// Runs every kernel at K = %k (split-K from two steps on).
func.func @check(%k: index) {
  %c40 = arith.constant 40 : index
  %c17 = arith.constant 17 : index
  %Ad = memref.alloc(%c40, %k) : memref<?x?xf32>
  %B = memref.alloc(%k) : memref<?x48xf32>
  call @fill(%Ad, %B) : (memref<?x?xf32>, memref<?x48xf32>) -> ()
  %A = memref.cast %Ad : memref<?x?xf32> to memref<40x?xf32>
  %C40 = memref.alloc() : memref<40x48xf32>
  %R40 = memref.alloc() : memref<40x48xf32>
  %C = memref.cast %C40 : memref<40x48xf32> to memref<?x48xf32>
  %R = memref.cast %R40 : memref<40x48xf32> to memref<?x48xf32>
  call @reference(%A, %B, %R40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @dp_uncached(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  call @dp_cached(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  %two = arith.cmpi sge, %k, %c17 : index
  scf.if %two {
    func.call @split_k(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
    func.call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  }
  call @stream_k(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  call @auto(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  call @both(%Ad, %B, %C) : (memref<?x?xf32>, memref<?x48xf32>, memref<?x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  call @reference_max(%A, %B, %R40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @pipelined_max(%A, %B, %C40) : (memref<40x?xf32>, memref<?x48xf32>, memref<40x48xf32>) -> ()
  call @report(%C, %R) : (memref<?x48xf32>, memref<?x48xf32>) -> ()
  memref.dealloc %Ad : memref<?x?xf32>
  memref.dealloc %B : memref<?x48xf32>
  memref.dealloc %C40 : memref<40x48xf32>
  memref.dealloc %R40 : memref<40x48xf32>
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  call @check(%c1) : (index) -> ()
  %c16 = arith.constant 16 : index
  call @check(%c16) : (index) -> ()
  %c17 = arith.constant 17 : index
  call @check(%c17) : (index) -> ()
  %c50 = arith.constant 50 : index
  call @check(%c50) : (index) -> ()
  %c97 = arith.constant 97 : index
  call @check(%c97) : (index) -> ()
  return
}
