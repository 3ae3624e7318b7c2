// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --emu-seed=7 %s | FileCheck %s
// RUN: ext-run --emu-seed=3 --emu-schedule=sequential %s | FileCheck %s
// gpu.printf comes out as on NVIDIA hardware, whatever order the emulator
// runs the threads in: a warp executes each printf for all its lanes, so
// its lines are in lane order, all first lines before all second lines.
// A block of 40 threads: warp 0 (lanes 0-31), then warp 1 (threads 32-39).
// A barrier between the two printfs lets the scheduler reorder threads.

func.func @main() {
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c40, %sy = %c1, %sz = %c1) {
    gpu.printf "first %ld\n", %tx : index
    gpu.barrier
    gpu.printf "second %ld\n", %tx : index
    gpu.terminator
  }
  return
}

// CHECK: first 0
// CHECK-NEXT: first 1
// CHECK-NEXT: first 2
// CHECK-NEXT: first 3
// CHECK-NEXT: first 4
// CHECK-NEXT: first 5
// CHECK-NEXT: first 6
// CHECK-NEXT: first 7
// CHECK-NEXT: first 8
// CHECK-NEXT: first 9
// CHECK-NEXT: first 10
// CHECK-NEXT: first 11
// CHECK-NEXT: first 12
// CHECK-NEXT: first 13
// CHECK-NEXT: first 14
// CHECK-NEXT: first 15
// CHECK-NEXT: first 16
// CHECK-NEXT: first 17
// CHECK-NEXT: first 18
// CHECK-NEXT: first 19
// CHECK-NEXT: first 20
// CHECK-NEXT: first 21
// CHECK-NEXT: first 22
// CHECK-NEXT: first 23
// CHECK-NEXT: first 24
// CHECK-NEXT: first 25
// CHECK-NEXT: first 26
// CHECK-NEXT: first 27
// CHECK-NEXT: first 28
// CHECK-NEXT: first 29
// CHECK-NEXT: first 30
// CHECK-NEXT: first 31
// CHECK-NEXT: second 0
// CHECK-NEXT: second 1
// CHECK-NEXT: second 2
// CHECK-NEXT: second 3
// CHECK-NEXT: second 4
// CHECK-NEXT: second 5
// CHECK-NEXT: second 6
// CHECK-NEXT: second 7
// CHECK-NEXT: second 8
// CHECK-NEXT: second 9
// CHECK-NEXT: second 10
// CHECK-NEXT: second 11
// CHECK-NEXT: second 12
// CHECK-NEXT: second 13
// CHECK-NEXT: second 14
// CHECK-NEXT: second 15
// CHECK-NEXT: second 16
// CHECK-NEXT: second 17
// CHECK-NEXT: second 18
// CHECK-NEXT: second 19
// CHECK-NEXT: second 20
// CHECK-NEXT: second 21
// CHECK-NEXT: second 22
// CHECK-NEXT: second 23
// CHECK-NEXT: second 24
// CHECK-NEXT: second 25
// CHECK-NEXT: second 26
// CHECK-NEXT: second 27
// CHECK-NEXT: second 28
// CHECK-NEXT: second 29
// CHECK-NEXT: second 30
// CHECK-NEXT: second 31
// CHECK-NEXT: first 32
// CHECK-NEXT: first 33
// CHECK-NEXT: first 34
// CHECK-NEXT: first 35
// CHECK-NEXT: first 36
// CHECK-NEXT: first 37
// CHECK-NEXT: first 38
// CHECK-NEXT: first 39
// CHECK-NEXT: second 32
// CHECK-NEXT: second 33
// CHECK-NEXT: second 34
// CHECK-NEXT: second 35
// CHECK-NEXT: second 36
// CHECK-NEXT: second 37
// CHECK-NEXT: second 38
// CHECK-NEXT: second 39
