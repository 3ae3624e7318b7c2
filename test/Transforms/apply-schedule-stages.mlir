// RUN: ext-opt %s --split-input-file --ext-apply-schedule="chip=sm_80" | FileCheck %s --check-prefixes=CHECK,ASYNC
// RUN: ext-opt %s --split-input-file --ext-apply-schedule="chip=gfx942" | FileCheck %s --check-prefixes=CHECK,REGS
// RUN: ext-opt %s --split-input-file --ext-apply-schedule="chip=sm_80 weaken-async-wait=true" | FileCheck %s --check-prefix=WEAK

// stages = 3 on a 64x64x40 matmul (k-steps of 16: 40 = 2 x 16 + 8, the
// ragged tail zero-filled): three shared buffers per cached input; a
// prologue issuing steps kb and kb+1 (each only if inside the unit), one
// commit each; a k-loop that waits for its own stage (all but the newest
// one group) with its one barrier, issues step k+2 into buffer (k+2) mod 3,
// computes on buffer k mod 3, commits; and a final drain. The loop carries
// both stages (k mod 3 and (k+2) mod 3, which is the previous step's):
// stage k+1 is stage k + 1 wrapped at 3, no division per step.
// CHECK-LABEL: func @stages3
// CHECK:       ^bb0(%{{.*}}: index, %{{.*}}: index, %[[KB:.*]]: index, %[[KE:.*]]: index):
// CHECK-COUNT-3: ext.alloc_shared {{.*}}memref<32x16xf32
// CHECK-COUNT-3: ext.alloc_shared {{.*}}memref<16x32xf32
// CHECK:         %[[P0:.*]] = arith.cmpi slt, %[[KB]], %[[KE]]
// ASYNC:         ext.copy %arg0[%{{.*}}] to %{{.*}} if %[[P0]] staged async
// ASYNC:         ext.copy %arg1[%{{.*}}] to %{{.*}} if %[[P0]] staged async
// REGS:          ext.copy %arg0[%{{.*}}] to %{{.*}} if %[[P0]] staged registers
// REGS:          ext.copy %arg1[%{{.*}}] to %{{.*}} if %[[P0]] staged registers
// CHECK-NEXT:    ext.copy_commit
// CHECK:         %[[S1:.*]] = arith.addi %[[KB]], %c1{{(_[0-9]+)?}} :
// CHECK:         %[[P1:.*]] = arith.cmpi slt, %[[S1]], %[[KE]]
// CHECK:         ext.copy %arg0{{.*}} if %[[P1]] staged
// CHECK:         ext.copy %arg1{{.*}} if %[[P1]] staged
// CHECK-NEXT:    ext.copy_commit
// CHECK:         %[[S0:.*]] = arith.remui %[[KB]], %c3{{(_[0-9]+)?}} :
// CHECK:         %[[C0:.*]] = arith.remui %{{.*}}, %c3{{(_[0-9]+)?}} :
// CHECK:         scf.for %[[K:.*]] = %[[KB]] to %[[KE]] step %{{.*}} iter_args(%[[S:.*]] = %[[S0]], %[[C:.*]] = %[[C0]]) -> (index, index) {
// CHECK-NEXT:      ext.copy_wait pending = 1
// CHECK-NEXT:      %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[K]], %{{.*}} :
// CHECK-NEXT:      %[[PN:.*]] = arith.cmpi slt, %[[N]], %[[KE]]
// CHECK-NOT:       arith.remui
// CHECK:           arith.cmpi eq, %[[C]], %c1{{.*}}
// CHECK:           arith.select {{.*}} {ext.stage_select}
// CHECK:           ext.copy %arg0{{.*}} if %[[PN]] staged
// CHECK:           ext.copy %arg1{{.*}} if %[[PN]] staged
// CHECK:           arith.cmpi eq, %[[S]], %c1{{.*}}
// CHECK:           ext.tile_compute {{.*}} accumulate
// CHECK:           ext.copy_commit
// CHECK:           %[[NEXT:.*]] = arith.addi %[[S]], %c1{{.*}}
// CHECK:           %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c3{{.*}}
// CHECK:           %[[SN:.*]] = arith.select %[[WRAP]], %c0{{.*}}, %[[NEXT]]
// CHECK-NEXT:      scf.yield %[[SN]], %[[S]] : index, index
// CHECK-NEXT:    }
// CHECK-NEXT:    ext.copy_wait pending = 0
// CHECK-NEXT:    ext.kernel_yield
// WEAK-LABEL: func @stages3
// WEAK:         scf.for
// WEAK-NEXT:      ext.copy_wait pending = 2
func.func @stages3(%A: memref<64x40xf32>, %B: memref<40x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B : memref<64x40xf32>, memref<40x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"],
        threads = [8, 8, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 3>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A max over a ragged k (40 = 2 x 16 + 8) cannot zero-fill: the full steps
// run in [kb, min(ke, 2)), and the ragged step 2 (whose copy the pipeline
// issued) waits for its stage and computes with bound 8. Only input 0 is
// cached; input 1 is read from global memory. async = false stages through
// registers on sm_80 too.
// CHECK-LABEL: func @peeled_max
// CHECK-COUNT-2: ext.alloc_shared
// CHECK-NOT:     ext.alloc_shared
// CHECK:         ext.copy_commit
// CHECK:         %[[FE:.*]] = arith.minsi %{{.*}}, %{{.*}} :
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[FE]]
// CHECK:           ext.copy_wait pending = 0
// CHECK:           ext.copy {{.*}} staged registers
// CHECK:           ext.tile_compute
// CHECK:           ext.copy_commit
// CHECK:         scf.if
// CHECK-NEXT:      ext.copy_wait pending = 0
// CHECK:           ext.tile_compute {{.*}} bounds(%{{.*}}, %{{.*}}, %c8{{(_[0-9]+)?}})
// CHECK-NOT:       ext.copy_commit
// CHECK:         ext.copy_wait pending = 0
// CHECK-NEXT:    ext.kernel_yield
func.func @peeled_max(%A: memref<64x40xf32>, %B: memref<40x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B : memref<64x40xf32>, memref<40x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"],
        threads = [8, 8, 1], cache = [#ext.cache<operand = 0>], stages = 2, async = false>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.addf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
