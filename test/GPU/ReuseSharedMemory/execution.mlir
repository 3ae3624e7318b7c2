// Shared-memory reuse on the CPU emulator: A and B never live together, so
// ext-gpu-reuse-shared-memory gives them the same bytes, and a barrier between A's
// last reads and B's first writes (the kernel has none there). Numbers are the
// same with the pass on and off; with that barrier dropped (a debugging
// option) threads overwrite A with B while others still read A: wrong.
// RUN: ext-run %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --reuse-shared-memory=false %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --emu-seed=3 %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --drop-hazard-barriers %s | FileCheck %s --check-prefix=WRONG
// The pass really did share the bytes (one 1024-byte buffer, not two).
// RUN: ext-opt %s --ext-gpu-reuse-shared-memory | FileCheck %s --check-prefix=PACKED

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %out = memref.alloc() : memref<256xi32>
  %bad = memref.alloc() : memref<i32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<256xi32, #gpu.address_space<workgroup>>,
                       %B : memref<256xi32, #gpu.address_space<workgroup>>) {
    %c255 = arith.constant 255 : index
    %mirror = arith.subi %c255, %tx : index
    %t = arith.index_cast %tx : index to i32
    // phase 1: A[t] = t, then read another thread's element
    memref.store %t, %A[%tx] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %A[%mirror] : memref<256xi32, #gpu.address_space<workgroup>>
    // phase 2: B[t] = 1000 + t, then read another thread's element
    %k = arith.constant 1000 : i32
    %w = arith.addi %t, %k : i32
    memref.store %w, %B[%tx] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %u = memref.load %B[%mirror] : memref<256xi32, #gpu.address_space<workgroup>>
    %r = arith.addi %v, %u : i32
    memref.store %r, %out[%tx] : memref<256xi32>
    gpu.terminator
  }
  // bad = number of t with out[t] != 2 (255 - t) + 1000
  ext.compute [#ext.axis<"t", reduce, 256>] ins(%out : memref<256xi32>) outs(%bad : memref<i32>)
      maps [affine_map<(t) -> (t)>, affine_map<(t) -> ()>] combiner(sum) {
  ^bb0(%x: i32):
    %t = ext.index "t" : index
    %ti = arith.index_cast %t : index to i32
    %c255 = arith.constant 255 : i32
    %c1000 = arith.constant 1000 : i32
    %m = arith.subi %c255, %ti : i32
    %m2 = arith.addi %m, %m : i32
    %e = arith.addi %m2, %c1000 : i32
    %ne = arith.cmpi ne, %x, %e : i32
    %one = arith.extui %ne : i1 to i32
    ext.yield %one : i32
  }
  %u = memref.cast %bad : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// RIGHT: rank = 0
// RIGHT-NEXT: [0]
// WRONG: rank = 0
// WRONG-NEXT: [{{[1-9][0-9]*}}]
// PACKED: workgroup(%{{.*}} : memref<1024xi8, #gpu.address_space<workgroup>>)
// PACKED: gpu.barrier
// PACKED: gpu.barrier
// PACKED: gpu.barrier
