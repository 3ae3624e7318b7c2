// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --emu-threads=1 --racecheck %s | FileCheck %s
// The async dialect on the CPU path: async.execute bodies run on MLIR's
// async runtime threads (ext-async-to-runtime) and launch kernels from
// there. A diamond: one body fills a device buffer, two bodies that wait
// for it scale it by 2 and by 3 (each its own kernel), and a fourth that
// waits for both adds the two results into the host's buffer with a third
// kernel: out[i] = 2 * (i + 1) + 3 * (i + 1) = 5 * (i + 1).

func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %out = memref.alloc() : memref<6xi32>

  %t0, %f0 = async.execute () -> !async.value<memref<6xi32>> {
    %src = gpu.alloc () : memref<6xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
      %one = arith.constant 1 : index
      %v = arith.addi %tx, %one : index
      %w = arith.index_cast %v : index to i32
      memref.store %w, %src[%tx] : memref<6xi32>
      gpu.terminator
    }
    async.yield %src : memref<6xi32>
  }

  %t1, %f1 = async.execute [%t0] (%f0 as %src : !async.value<memref<6xi32>>) -> !async.value<memref<6xi32>> {
    %dst = gpu.alloc () : memref<6xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
      %two = arith.constant 2 : i32
      %x = memref.load %src[%tx] : memref<6xi32>
      %y = arith.muli %x, %two : i32
      memref.store %y, %dst[%tx] : memref<6xi32>
      gpu.terminator
    }
    async.yield %dst : memref<6xi32>
  }

  %t2, %f2 = async.execute [%t0] (%f0 as %src : !async.value<memref<6xi32>>) -> !async.value<memref<6xi32>> {
    %dst = gpu.alloc () : memref<6xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
      %three = arith.constant 3 : i32
      %x = memref.load %src[%tx] : memref<6xi32>
      %y = arith.muli %x, %three : i32
      memref.store %y, %dst[%tx] : memref<6xi32>
      gpu.terminator
    }
    async.yield %dst : memref<6xi32>
  }

  %t3 = async.execute [%t1, %t2] (%f1 as %a : !async.value<memref<6xi32>>,
                                  %f2 as %b : !async.value<memref<6xi32>>) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
      %x = memref.load %a[%tx] : memref<6xi32>
      %y = memref.load %b[%tx] : memref<6xi32>
      %s = arith.addi %x, %y : i32
      memref.store %s, %out[%tx] : memref<6xi32>
      gpu.terminator
    }
    async.yield
  }
  async.await %t3 : !async.token

  // CHECK: [5,  10,  15,  20,  25,  30]
  %u = memref.cast %out : memref<6xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
