// RUN: ext-run --emu-schedule=round-robin %s | FileCheck %s
// RUN: ext-run %s | sort | FileCheck %s --check-prefix=ANY-ORDER
// gpu.printf with integer, index and float arguments (promoted as C varargs
// need). Round-robin prints in thread order; any schedule prints every line.

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %small = arith.trunci %t : i32 to i8
    %f = arith.sitofp %t : i32 to f32
    %q = arith.constant 0.25 : f32
    %fq = arith.addf %f, %q : f32
    %d = arith.extf %fq : f32 to f64
    gpu.printf "block %ld thread %d (%d): %.2f %g\n", %bx, %t, %small, %fq, %d : index, i32, i8, f32, f64
    gpu.terminator
  }
  return
}

// CHECK: block 0 thread 0 (0): 0.25 0.25
// CHECK-NEXT: block 0 thread 1 (1): 1.25 1.25
// CHECK-NEXT: block 0 thread 2 (2): 2.25 2.25
// CHECK-NEXT: block 1 thread 0 (0): 0.25 0.25
// CHECK-NEXT: block 1 thread 1 (1): 1.25 1.25
// CHECK-NEXT: block 1 thread 2 (2): 2.25 2.25

// ANY-ORDER: block 0 thread 0 (0): 0.25 0.25
// ANY-ORDER-NEXT: block 0 thread 1 (1): 1.25 1.25
// ANY-ORDER-NEXT: block 0 thread 2 (2): 2.25 2.25
// ANY-ORDER-NEXT: block 1 thread 0 (0): 0.25 0.25
// ANY-ORDER-NEXT: block 1 thread 1 (1): 1.25 1.25
// ANY-ORDER-NEXT: block 1 thread 2 (2): 2.25 2.25
