// RUN: ext-opt %s --split-input-file --ext-apply-schedule | FileCheck %s
// Bare-axis accesses whose axis is not as long as the dimension, and
// producers inlined where their reader reads them under a guard.

// -----

// Concat: X is read with axis i (16) over its 8 elements, only where i < 8.
// The tiles past 8 would copy outside X: its copy is masked (no in_bounds).
// CHECK-LABEL: func.func @concat
// CHECK: ext.copy %arg0[%{{[0-9]+}}] to %{{[0-9]+}} : memref<8xf32>
// CHECK: ext.copy %arg1[%{{[0-9]+}}] to %{{[0-9]+}} : memref<8xf32>
func.func @concat(%X: memref<8xf32>, %Z: memref<8xf32>, %Y: memref<16xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>]
      ins(%X, %Z : memref<8xf32>, memref<8xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i - 8)>, affine_map<(i) -> (i)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [4], blocks = ["i"], threads = [4],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%x: f32, %z: f32):
    %i = ext.index "i" : index
    %c8 = arith.constant 8 : index
    %lo = arith.cmpi slt, %i, %c8 : index
    %v = scf.if %lo -> f32 {
      scf.yield %x : f32
    } else {
      scf.yield %z : f32
    }
    ext.yield %v : f32
  }
  return
}

// -----

// The first 5 rows of an 8-row tensor: tiles of 4 divide 8, not 5, so the
// copy is masked and the last tile computes one row.
// CHECK-LABEL: func.func @first_rows
// CHECK: ext.kernel tiles [2]
// CHECK: ext.copy %arg0[%{{.*}}, %{{.*}}] to %{{.*}} {in_bounds = array<i1: false, true>} : memref<8x16xf32>
// CHECK: ext.tile_compute
// CHECK-SAME: bounds(%{{[0-9]+}}, %c16)
func.func @first_rows(%X: memref<8x16xf32>, %Y: memref<5x16xf32>) {
  ext.compute [#ext.axis<"i", spatial, 5>, #ext.axis<"j", spatial, 16>]
      ins(%X : memref<8x16xf32>) outs(%Y : memref<5x16xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [4, 16], blocks = ["i"],
        threads = [4, 16], cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%x: f32):
    %c = arith.constant 2.0 : f32
    %v = arith.mulf %x, %c : f32
    ext.yield %v : f32
  }
  return
}

// -----

// A GEMM over the first 5 of 8 columns of A (rows of B), k tiled by 4: the
// last k-step reads A's columns 5..7, which hold data, not the zeros past
// A's end, so it is peeled to its one column.
// CHECK-LABEL: func.func @short_k
// CHECK: ext.kernel tiles [2, 2] iters 2
// CHECK: scf.for
// CHECK: scf.if
// CHECK: ext.tile_compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 4>, #ext.axis<"k", reduce, 4>]
// CHECK-SAME: bounds(%{{.*}}, %{{.*}}, %c1
func.func @short_k(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 5>]
      ins(%A, %B : memref<8x8xf32>, memref<8x8xf32>) outs(%C : memref<8x8xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [4, 4, 4],
        blocks = ["i", "j"], threads = [4, 4, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Y[j] = j < 8 ? 0 : B[j - 8] with B[x] = A[x] * 2 inlined: B's body, and
// so the read of A at (j - 8), stays in the else branch, where j >= 8.
// CHECK-LABEL: func.func @inline_under_guard
// CHECK-NOT: ext.compute
// CHECK: ext.tile_compute
// CHECK: %[[LO:.*]] = arith.cmpi slt
// CHECK: scf.if %[[LO]]
// CHECK: } else {
// CHECK: arith.mulf
// CHECK: scf.yield
func.func @inline_under_guard(%A: memref<8xf32>, %Y: memref<16xf32>) {
  %B = memref.alloc() : memref<8xf32>
  ext.compute [#ext.axis<"x", spatial, 8>] ins(%A : memref<8xf32>) outs(%B : memref<8xf32>)
      maps [affine_map<(x) -> (x)>, affine_map<(x) -> (x)>] attributes {name = "B"} {
  ^bb0(%a: f32):
    %c2 = arith.constant 2.0 : f32
    %v = arith.mulf %a, %c2 : f32
    ext.yield %v : f32
  }
  ext.compute [#ext.axis<"j", spatial, 16>] ins(%B : memref<8xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(j) -> (j - 8)>, affine_map<(j) -> (j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [4], blocks = ["j"], threads = [4],
        compute_inline = ["B"]>} {
  ^bb0(%b: f32):
    %j = ext.index "j" : index
    %c8 = arith.constant 8 : index
    %lo = arith.cmpi slt, %j, %c8 : index
    %v = scf.if %lo -> f32 {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    } else {
      scf.yield %b : f32
    }
    ext.yield %v : f32
  }
  memref.dealloc %B : memref<8xf32>
  return
}
