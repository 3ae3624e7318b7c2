// Race detection in global memory (ext-run --racecheck instruments global
// accesses): blocks are ordered only through atomics; within a block, by
// barriers as in workgroup memory.

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

// Thread 0 of each of two blocks writes the same global word.
func.func @two_blocks() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %out = memref.alloc() : memref<1xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %c0i = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0i : index
    scf.if %first {
      %b = arith.index_cast %bx : index to i32
      memref.store %b, %out[%c0i] : memref<1xi32>
    }
    gpu.terminator
  }
  %u = memref.cast %out : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// Every thread of 4 blocks adds into one word with an atomic: no race.
func.func @atomic_sum() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  %out = memref.alloc() : memref<1xi32>
  memref.store %zero, %out[%c0] : memref<1xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0i = arith.constant 0 : index
    %one = arith.constant 1 : i32
    memref.atomic_rmw addi %one, %out[%c0i] : (i32, memref<1xi32>) -> i32
    gpu.terminator
  }
  %u = memref.cast %out : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// Threads of a block write global words, barrier, read their neighbours'.
func.func @block_barrier() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<2x16xi32>
  %out = memref.alloc() : memref<2x16xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %c15 = arith.constant 15 : index
    %t = arith.index_cast %tx : index to i32
    memref.store %t, %buf[%bx, %tx] : memref<2x16xi32>
    gpu.barrier
    %m = arith.subi %c15, %tx : index
    %v = memref.load %buf[%bx, %m] : memref<2x16xi32>
    memref.store %v, %out[%bx, %tx] : memref<2x16xi32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<2x16xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// The same without the barrier.
func.func @block_no_barrier() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<2x16xi32>
  %out = memref.alloc() : memref<2x16xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %c15 = arith.constant 15 : index
    %t = arith.index_cast %tx : index to i32
    memref.store %t, %buf[%bx, %tx] : memref<2x16xi32>
    %m = arith.subi %c15, %tx : index
    %v = memref.load %buf[%bx, %m] : memref<2x16xi32>
    memref.store %v, %out[%bx, %tx] : memref<2x16xi32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<2x16xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// A strided view as the kernel argument: the byte offset counts from the
// view's first element (offset 2 of the 8x8 buffer), not from the buffer.
func.func @strided_view() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %buf = memref.alloc() : memref<8x8xi32>
  %view = memref.subview %buf[0, 2] [4, 4] [1, 1] : memref<8x8xi32> to memref<4x4xi32, strided<[8, 1], offset: 2>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c3 = arith.constant 3 : index
    %b = arith.index_cast %bx : index to i32
    memref.store %b, %view[%c3, %c3] : memref<4x4xi32, strided<[8, 1], offset: 2>>
    gpu.terminator
  }
  memref.dealloc %buf : memref<8x8xi32>
  return
}
// Element [3, 3] is 3 * 8 + 3 elements, 108 bytes, into the view.
