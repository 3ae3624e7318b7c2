// A thread that finishes while the rest of its block waits at a barrier is
// an error naming the kernel, the block, the thread and the barrier, with a
// non-zero exit, never a hang. The output printed before the launch stays.
// RUN: not ext-run --emu-schedule=sequential %s 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=SEQ < %t.err
// RUN: not ext-run %s 2>&1 | FileCheck %s
// RUN: not ext-run --emu-seed=5 %s 2>&1 | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %m = memref.alloc() : memref<1xf32>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c0] : memref<1xf32>
  %u = memref.cast %m : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %skip = arith.cmpi eq, %tx, %c3 : index
    scf.if %skip {
    } else {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// OUT: sizes = [1] strides = [1] data =
// OUT-NEXT: {{^}}[1]
// SEQ: ext-emu: error: kernel 'main_kernel' (launched at {{.*}}exit-before-barrier.mlir:21:3): thread (3, 0, 0) of block (0, 0, 0) exited while 3 other threads of its block wait at the gpu.barrier at {{.*}}exit-before-barrier.mlir:26:7; every thread of a block must reach each barrier

// CHECK: sizes = [1]
// Which thread notices first depends on the schedule; both messages name the
// thread that left and the barrier.
// CHECK: ext-emu: error: kernel 'main_kernel' (launched at {{.*}}exit-before-barrier.mlir:21:3): {{.*(thread \(3, 0, 0\) of block \(0, 0, 0\).*gpu.barrier at .*exit-before-barrier.mlir:26:7|gpu.barrier at .*exit-before-barrier.mlir:26:7.*thread \(3, 0, 0\) of block \(0, 0, 0\))}}
