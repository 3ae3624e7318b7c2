// One scheduled kernel for every M: a GEMM whose i axis has a dynamic extent
// (A is memref<?x97xf32>) with 32x32x16 tiles, 3-stage pipelined copies and
// a 2x2 register block per thread. The host computes the grid, ceil(M / 32)
// x 5 tiles; the last row of tiles is masked. @main runs it at M = 1, 7, 33
// and 70 against the unscheduled reference (integer data: exact, 0).
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-apply-schedule --ext-kernel-to-gpu %s | FileCheck %s --check-prefix=LAUNCH
// RUN: ext-run %s | FileCheck %s
// The kernel runs only if A's and C's row counts agree; otherwise the call
// fails with the check's message.
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.ones((5, 97), np.float32)); np.save('%t.b.npy', np.ones((97, 130), np.float32)); np.save('%t.c.npy', np.zeros((4, 130), np.float32))"
// RUN: not ext-run --entry=gemm --inputs=%t.a.npy,%t.b.npy,%t.c.npy %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: ext-emu: error: host check failed: ext.compute: dimension #0 of output #0 is not the extent of axis 'i' that indexes it

// KERNEL-LABEL: func.func @gemm
// KERNEL: %[[SAME:.*]] = arith.cmpi eq
// KERNEL: scf.if %[[SAME]] {
// KERNEL: %[[M:.*]] = memref.dim %arg0, %c0
// KERNEL: %[[ROWS:.*]] = arith.ceildivui %[[M]], %c32
// KERNEL: ext.kernel tiles [%[[ROWS]], 5] iters 7 threads 256 decomposition #ext.data_parallel
// KERNEL: } else {
// KERNEL: cf.assert %[[SAME]], "ext.compute: dimension #0 of output #0 is not the extent of axis 'i' that indexes it" {ext.guarded}
// LAUNCH-LABEL: func.func @gemm
// LAUNCH: %[[ROWS:.*]] = arith.ceildivui
// LAUNCH: %[[GRID:.*]] = arith.muli %[[ROWS]], %c5
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads

// CHECK-COUNT-4: [0]

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm(%A: memref<?x97xf32>, %B: memref<97x130xf32>, %C: memref<?x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 97>]
      ins(%A, %B : memref<?x97xf32>, memref<97x130xf32>) outs(%C : memref<?x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [2, 2]>, stages = 3,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
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

// A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6; prints
// max |C - reference|.
func.func @check(%m: index, %B: memref<97x130xf32>) {
  %A = memref.alloc(%m) : memref<?x97xf32>
  %C = memref.alloc(%m) : memref<?x130xf32>
  %R = memref.alloc(%m) : memref<?x130xf32>
  %err = memref.alloc() : memref<f32>
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
  call @gemm(%A, %B, %C) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<?x97xf32>, memref<97x130xf32>, memref<?x130xf32>) -> ()
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
  %c7 = arith.constant 7 : index
  %c33 = arith.constant 33 : index
  %c70 = arith.constant 70 : index
  call @check(%c1, %B) : (index, memref<97x130xf32>) -> ()
  call @check(%c7, %B) : (index, memref<97x130xf32>) -> ()
  call @check(%c33, %B) : (index, memref<97x130xf32>) -> ()
  call @check(%c70, %B) : (index, memref<97x130xf32>) -> ()
  return
}
