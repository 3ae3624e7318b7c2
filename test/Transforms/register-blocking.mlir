// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads 2>/dev/null | FileCheck %s
// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A blocked register tile (2x2 runs of 4x4 points per thread), 16-byte
// copies of A (rows of 64 floats), 8-byte copies of B (rows of 130) with a
// remark, zero-filled k tail (100 = 6 x 16 + 4): 7 full k-steps with no
// check. Per 4 k-points each thread reads 8 float4 of A and 8 of B from
// shared memory and does 256 fused multiply-adds, with no branch; the k
// tile's 4 such steps are unrolled (no inner loop: the reads' offsets are
// constants).
// CHECK-LABEL: func @blocked_gemm
// CHECK:       gpu.launch
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c7{{.*}} step %c1
// CHECK:           %[[AV:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<128x100xf32>, vector<4xf32>
// CHECK:           arith.select %{{.*}}, %[[AV]], %{{.*}} : vector<4xf32>
// CHECK:           vector.store {{.*}} {alignment = 16 : i64} : memref<128x16xf32, {{.*}}#gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           vector.load %{{.*}} {alignment = 8 : i64} : memref<100x130xf32>, vector<2xf32>
// CHECK:           gpu.barrier
// CHECK-NOT:         scf.for
// CHECK-NOT:         scf.if
// CHECK-COUNT-64:    vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}#gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT:         scf.if
// CHECK:             math.fma
// CHECK-NOT:         scf.if
// CHECK:           gpu.barrier
// CHECK:         }
// CHECK-NOT:     scf.if
// CHECK:         scf.if
// CHECK:           memref.store
// REMARK: remark: copies 2 element(s) at a time instead of 4: the source's rows are 130 elements long
func.func @blocked_gemm(%A: memref<128x100xf32>, %B: memref<100x130xf32>, %C: memref<128x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 128>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<128x100xf32>, memref<100x130xf32>) outs(%C : memref<128x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [128, 128, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// exp under sum: the zero fill would add exp(0) = 1, so the ragged k-step
// (100 = 6 x 16 + 4) is peeled: 6 full steps (min(k_end, 6)), then one of
// 4 points under a CTA-uniform condition; no fused multiply-add (the body
// does not yield a product).
// CHECK-LABEL: func @exp_under_sum
// CHECK:         %[[END:.*]] = arith.minsi %c7{{.*}}, %c6
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %[[END]] step %c1
// CHECK-NOT:       scf.for
// CHECK:         arith.cmpi sgt, %c7{{.*}}, %c6
// CHECK:         scf.if
// CHECK:           gpu.barrier
// CHECK-NOT:       scf.for
// CHECK-NOT:     math.fma
// CHECK-LABEL: func @max_of_products
// CHECK:         arith.minsi %c7{{.*}}, %c6
// CHECK:         scf.if
// CHECK:           arith.maximumf
func.func @exp_under_sum(%A: memref<64x100xf32>, %B: memref<100x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<64x100xf32>, memref<100x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    %e = math.exp %p : f32
    ext.yield %e : f32
  }
  return
}

func.func @max_of_products(%A: memref<64x100xf32>, %B: memref<100x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<64x100xf32>, memref<100x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) attributes {schedule = #ext.schedule<tile = [64, 64, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// An uncached input is read from global memory: points beyond the ragged
// edge (100 = 64 + 36) keep their guard, so that nothing is read out of
// bounds.
// CHECK-LABEL: func @uncached_keeps_guards
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               math.fma
func.func @uncached_keeps_guards(%A: memref<100x32xf32>, %B: memref<32x64xf32>, %C: memref<100x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<100x32xf32>, memref<32x64xf32>) outs(%C : memref<100x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], layout = #ext.blocked<thread_tile = [4, 4]>,
        cache = [#ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
