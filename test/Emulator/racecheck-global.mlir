// Race detection in global memory (ext-run --racecheck instruments global
// accesses): blocks are ordered only through atomics; within a block, by
// barriers as in workgroup memory.
// RUN: not ext-run --racecheck --entry=two_blocks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WAW
// RUN: not ext-run --racecheck --entry=two_blocks --emu-schedule=sequential %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WAW
// RUN: ext-run --racecheck --entry=atomic_sum %s | FileCheck %s --check-prefix=SUM
// RUN: ext-run --racecheck --entry=block_barrier %s | FileCheck %s --check-prefix=BAR
// RUN: not ext-run --racecheck --entry=block_no_barrier %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NOBAR

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
// WAW: ext-emu: error: kernel 'two_blocks_kernel' (launched at {{.*}}racecheck-global.mlir:19:3): racecheck: 1 data race (1 conflicting access pair)
// WAW-NEXT: ext-emu: race: write-after-write on global memory, byte 0 of argument 1 of @two_blocks_kernel (memref<1xi32>, at {{.*}}racecheck-global.mlir:19:3): write by thread (0, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:25:7, then write by thread (0, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:25:7 (1 time)

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
// SUM: [128]

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
// BAR: {{\[}}[15,   14,   13,   12,   11,   10,   9,   8,   7,   6,   5,   4,   3,   2,   1,   0],

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
// NOBAR: racecheck: 2 data races
// NOBAR-DAG: ext-emu: race: write-after-read on global memory, byte {{[0-9]+}} of argument 0 of @block_no_barrier_kernel (memref<2x16xi32>, at {{.*}}racecheck-global.mlir:89:3): read by thread ({{[0-9]+}}, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:95:10, then write by thread ({{[0-9]+}}, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:93:5
// NOBAR-DAG: ext-emu: race: read-after-write on global memory, byte {{[0-9]+}} of argument 0 of @block_no_barrier_kernel (memref<2x16xi32>, at {{.*}}racecheck-global.mlir:89:3): write by thread ({{[0-9]+}}, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:93:5, then read by thread ({{[0-9]+}}, 0, 0) of block ({{[01]}}, 0, 0) at {{.*}}racecheck-global.mlir:95:10

// A strided view as the kernel argument: the byte offset counts from the
// view's first element (offset 2 of the 8x8 buffer), not from the buffer.
// RUN: not ext-run --racecheck --entry=strided_view %s 2>&1 >/dev/null | FileCheck %s --check-prefix=STRIDED
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
// STRIDED: ext-emu: race: write-after-write on global memory, byte 108 of argument 0 of @strided_view_kernel (memref<4x4xi32, strided<[8, 1], offset: 2>>, at {{.*}}racecheck-global.mlir:{{[0-9]+}}:3): write by thread (0, 0, 0) of block ({{[01]}}, 0, 0)
