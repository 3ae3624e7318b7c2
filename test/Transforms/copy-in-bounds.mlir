// A window known to lie inside its source (`in_bounds`) is copied without a
// mask: no bounds compare, no zero-fill select. ext-apply-schedule states it
// for each dimension an axis indexes alone when the tile divides the axis's
// extent or its stated multiple_of: A's rows of a ragged M (40 rows, 16-row
// tiles) stay checked, its columns (K = 64 or any multiple of 16) do not.
//
// RUN: ext-opt %s --split-input-file --ext-tile-ops-to-threads | FileCheck %s --check-prefix=LOWER
// RUN: ext-opt %s --split-input-file --ext-apply-schedule | FileCheck %s --check-prefix=PLAN

// LOWER-LABEL: func @inside
// LOWER: gpu.launch
// LOWER-NOT: arith.cmpi
// LOWER-NOT: arith.select
// LOWER: vector.load %{{.*}} : memref<64x64xf32>, vector<4xf32>
// LOWER: gpu.terminator
func.func @inside(%A: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c16 = arith.constant 16 : index
    %s = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    ext.copy %A[%c16, %c16] to %s {vector = 4 : i64, in_bounds = array<i1: true, true>} : memref<64x64xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Rows checked, columns not: one compare per vector.
// LOWER-LABEL: func @rows_checked
// LOWER: gpu.launch
// LOWER: memref.dim %{{.*}}, %c0
// LOWER-NOT: memref.dim
// LOWER: arith.cmpi ult
// LOWER-NOT: arith.cmpi
// LOWER: gpu.terminator
func.func @rows_checked(%A: memref<?x64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c16 = arith.constant 16 : index
    %s = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    ext.copy %A[%c16, %c16] to %s {vector = 4 : i64, in_bounds = array<i1: false, true>} : memref<?x64xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// PLAN-LABEL: func @ragged_m
// PLAN: ext.copy %arg0{{.*}} {in_bounds = array<i1: false, true>, vector = 4 : i64}
// PLAN: ext.copy %arg1{{.*}} {in_bounds = array<i1: true, true>, vector = 4 : i64}
func.func @ragged_m(%A: memref<40x64xf32>, %B: memref<64x48xf32>, %C: memref<40x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<40x64xf32>, memref<64x48xf32>) outs(%C : memref<40x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], vector = 4>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A dynamic K that is a stated multiple of the k tile: its dimensions are
// in bounds, and A's rows keep vector copies (row_multiple).
// PLAN-LABEL: func @k_multiple
// PLAN: ext.copy %arg0{{.*}} {in_bounds = array<i1: true, true>, row_multiple = 16 : i64, vector = 4 : i64}
// PLAN: ext.copy %arg1{{.*}} {in_bounds = array<i1: true, true>, vector = 4 : i64}
func.func @k_multiple(%A: memref<64x?xf32>, %B: memref<?x48xf32>, %C: memref<64x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, ?, multiple_of = 16>]
      ins(%A, %B : memref<64x?xf32>, memref<?x48xf32>) outs(%C : memref<64x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"],
        threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], vector = 4>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
