// A thread that finishes while the rest of its block waits at a barrier is
// an error naming the kernel, the block, the thread and the barrier, with a
// non-zero exit, never a hang. The output printed before the launch stays.

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


// Which thread notices first depends on the schedule; both messages name the
// thread that left and the barrier.
