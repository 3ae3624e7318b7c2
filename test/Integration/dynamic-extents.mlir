// One function serves every size: a matmul whose i and k axes have dynamic
// extents (`?`), bound to the dynamic dimensions of its operands, runs
// unscheduled (as loops) at M = 1, 3 and K = 2, 5 from the same code. A[i, k]
// = i + k and B[k, j] = j + 1, so C[i, j] = (j + 1) (K i + K (K - 1) / 2).
// Operands whose sizes disagree stop the program with the check's message.
//
// RUN: ext-run %s | FileCheck %s
// RUN: not ext-run --entry=mismatch %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
//
// ext-run sizes dynamic arguments from their .npy files (--inputs), and
// refuses to guess the size of one without a file.
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.arange(6, dtype=np.float32).reshape(3, 2)); np.save('%t.b.npy', np.ones((2, 2), np.float32)); np.save('%t.b3.npy', np.ones((3, 2), np.float32)); np.save('%t.c.npy', np.zeros((3, 2), np.float32))"
// RUN: ext-run --entry=matmul --inputs=%t.a.npy,%t.b.npy,%t.c.npy --print-outputs %s | FileCheck %s --check-prefix=NPY
// RUN: not ext-run --entry=matmul --inputs=%t.a.npy,%t.b3.npy,%t.c.npy %s 2>&1 | FileCheck %s --check-prefix=NPY-MISMATCH
// RUN: not ext-run --entry=matmul --inputs=%t.a.npy,%t.b.npy %s 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NPY: %arg2 = memref<3x2xf32> {{\[}}[1, 1],
// NPY-NEXT: [5, 5],
// NPY-NEXT: [9, 9]]
// NPY-MISMATCH: ext-emu: error: host check failed: ext.compute: dimension #0 of input #1 is not the extent of axis 'k' that indexes it
// NO-FILE: error: argument 2 of @matmul is 'memref<?x2xf32>', of dynamic shape: give it with --inputs (a .npy file of any size in its dynamic dimensions)

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x2xf32>, %C: memref<?x2xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 2>, #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<?x?xf32>, memref<?x2xf32>) outs(%C : memref<?x2xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// Fills A and B (computes with dynamic extents too), multiplies, prints C.
func.func @run(%m: index, %k: index, %kb: index) {
  %A = memref.alloc(%m, %k) : memref<?x?xf32>
  %B = memref.alloc(%kb) : memref<?x2xf32>
  %C = memref.alloc(%m) : memref<?x2xf32>
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", spatial, ?>]
      outs(%A : memref<?x?xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %kk = ext.index "k" : index
    %s = arith.addi %i, %kk : index
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    ext.yield %sf : f32
  }
  ext.compute [#ext.axis<"k", spatial, ?>, #ext.axis<"j", spatial, 2>]
      outs(%B : memref<?x2xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %j = ext.index "j" : index
    %c1 = arith.constant 1 : index
    %s = arith.addi %j, %c1 : index
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    ext.yield %sf : f32
  }
  call @matmul(%A, %B, %C) : (memref<?x?xf32>, memref<?x2xf32>, memref<?x2xf32>) -> ()
  %u = memref.cast %C : memref<?x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %A : memref<?x?xf32>
  memref.dealloc %B : memref<?x2xf32>
  memref.dealloc %C : memref<?x2xf32>
  return
}

// CHECK: sizes = [1, 2]
// CHECK-NEXT: {{\[}}[1, 2]]
// CHECK: sizes = [3, 2]
// CHECK-NEXT: {{\[}}[10, 20],
// CHECK-NEXT:  [15, 30],
// CHECK-NEXT:  [20, 40]]
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  call @run(%c1, %c2, %c2) : (index, index, index) -> ()
  call @run(%c3, %c5, %c5) : (index, index, index) -> ()
  return
}

// MISMATCH: ext-emu: error: host check failed: ext.compute: dimension #0 of input #1 is not the extent of axis 'k' that indexes it
func.func @mismatch() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  call @run(%c2, %c3, %c2) : (index, index, index) -> ()
  return
}
