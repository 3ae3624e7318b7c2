// A stated divisibility fact: `#ext.axis<"i", spatial, ?, multiple_of = 16>`
// with 16-row tiles. The frame's row bound folds to the tile (no
// min(tile, M - offset) on i: the kernel is guard-free along M, like a
// static M that the tile divides), and the fact is checked when the compute
// runs: M = 33 is refused with the check's message, never run. @gemm_any
// (no fact) keeps the bound. @main runs @gemm16 at M = 16 and 48 against the
// unscheduled reference (integer data: exact, 0).
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-schedule-to-gpu %s | FileCheck %s --check-prefix=FRAME
// RUN: ext-run %s | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.ones((33, 64), np.float32)); np.save('%t.b.npy', np.ones((64, 128), np.float32)); np.save('%t.c.npy', np.zeros((33, 128), np.float32))"
// RUN: not ext-run --entry=gemm16 --inputs=%t.a.npy,%t.b.npy,%t.c.npy %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: ext-emu: error: host check failed: ext.compute: the extent of axis 'i' is not a multiple of 16, as its #ext.axis states

// KERNEL-LABEL: func.func @gemm16
// KERNEL: %[[REST:.*]] = arith.remui %{{.*}}, %c16
// KERNEL: %[[DIVIDES:.*]] = arith.cmpi eq, %[[REST]], %c0
// KERNEL: scf.if
// KERNEL: ext.kernel tiles [%{{.*}}, 4]
// KERNEL: cf.assert %[[DIVIDES]], "ext.compute: the extent of axis 'i' is not a multiple of 16, as its #ext.axis states" {ext.guarded}

// FRAME-LABEL: func.func @gemm16
// FRAME-NOT: arith.minsi
// FRAME-LABEL: func.func @gemm_any
// FRAME: arith.minsi

// CHECK-COUNT-2: [0]

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm16(%A: memref<?x64xf32>, %B: memref<64x128xf32>, %C: memref<?x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?, multiple_of = 16>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x128xf32>) outs(%C : memref<?x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_any(%A: memref<?x64xf32>, %B: memref<64x128xf32>, %C: memref<?x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x128xf32>) outs(%C : memref<?x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<?x64xf32>, %B: memref<64x128xf32>, %C: memref<?x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 128>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x128xf32>) outs(%C : memref<?x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6; prints
// max |C - reference|.
func.func @check(%m: index) {
  %A = memref.alloc(%m) : memref<?x64xf32>
  %B = memref.alloc() : memref<64x128xf32>
  %C = memref.alloc(%m) : memref<?x128xf32>
  %R = memref.alloc(%m) : memref<?x128xf32>
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", spatial, 64>]
      outs(%A : memref<?x64xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 64>, #ext.axis<"j", spatial, 128>]
      outs(%B : memref<64x128xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @gemm16(%A, %B, %C) : (memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, ?>, #ext.axis<"j", reduce, 128>]
      ins(%C, %R : memref<?x128xf32>, memref<?x128xf32>) outs(%err : memref<f32>)
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

func.func @main() {
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  call @check(%c16) : (index) -> ()
  call @check(%c48) : (index) -> ()
  return
}
