// Loop-carried liveness on the CPU emulator. Each kernel runs a loop of 4
// iterations with two buffers: X first in the body, Y after it.
//
// @carried_read_first, @carried_partial, @carried_tid16: X carries data
// into the next iteration (read before it is written; half overwritten;
// written only by threads 0-15), so X and Y must not share bytes: if they
// did, Y's writes would clobber what the next iteration reads of X. Each
// kernel counts wrong values: 0 with reuse on and off, under several seeds.
//
// @uncarried: X (a k-loop tile, written whole before a barrier, then read)
// and Y (an epilogue tile) carry nothing across the outer loop, so they
// share bytes; the barriers reuse adds (after X's last reads, and on the
// back-edge after Y's) are needed: dropped, threads clobber each other's
// tiles and the count is not 0 (and racecheck reports it).
//
// RUN: ext-run %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --reuse-shared-memory=false %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --emu-seed=3 %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --emu-seed=11 %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --racecheck %s | FileCheck %s --check-prefix=RIGHT
// RUN: ext-opt %s --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not ext-run --racecheck --drop-hazard-barriers %s 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ext-opt %s --ext-gpu-reuse-shared-memory | FileCheck %s --check-prefix=PACKED

// @uncarried's X and Y at the same offset of one 256-byte buffer, with a
// barrier after the k-loop and one closing the outer loop's body.
// PACKED-LABEL: func @uncarried
// PACKED:       workgroup(%[[W:.*]] : memref<256xi8, #gpu.address_space<workgroup>>)
// PACKED:         %[[Y:.*]] = memref.view %[[W]][%{{.*}}][]
// PACKED:         %[[X:.*]] = memref.view %[[W]][%{{.*}}][]
// PACKED:         scf.for
// PACKED:           scf.for
// PACKED:             memref.store %{{.*}}, %[[X]]
// PACKED:             scf.yield
// PACKED-NEXT:      }
// PACKED-NEXT:      arith.constant
// PACKED-NEXT:      arith.addi
// PACKED-NEXT:      gpu.barrier
// PACKED-NEXT:      memref.store %{{.*}}, %[[Y]]
// PACKED:           memref.load %[[Y]]
// PACKED-NEXT:      arith.addi
// PACKED-NEXT:      gpu.barrier
// PACKED-NEXT:      scf.yield

// RIGHT-COUNT-4: [0]
// REPORT-LABEL: kernel @carried_read_first
// REPORT: footprint 512 B with reuse, 512 B without (nothing shared)
// REPORT-LABEL: kernel @carried_partial
// REPORT: footprint 1024 B with reuse, 1024 B without (nothing shared)
// REPORT-LABEL: kernel @carried_tid16
// REPORT: footprint 512 B with reuse, 512 B without (nothing shared)
// REPORT-LABEL: kernel @uncarried
// REPORT: footprint 256 B with reuse, 512 B without: the largest buffer
// RACE: kernel 'uncarried_kernel' {{.*}}: racecheck: {{[0-9]+}} data races

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

!wg = memref<64xi32, #gpu.address_space<workgroup>>

// out[t] = what thread t read of X in the last iteration + of Y, summed.
func.func @carried_read_first(%out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%X : !wg, %Y : !wg) {
    %c63 = arith.constant 63 : index
    %m = arith.subi %c63, %tx : index
    %t = arith.index_cast %tx : index to i32
    memref.store %t, %X[%tx] : !wg
    gpu.barrier
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
      // X: read (the previous iteration's values), then rewritten
      %x = memref.load %X[%m] : !wg
      gpu.barrier
      %x1 = arith.addi %x, %one : i32
      memref.store %x1, %X[%tx] : !wg
      gpu.barrier
      // Y: written whole, then read
      %k = arith.constant 1000 : i32
      %y0 = arith.addi %t, %k : i32
      memref.store %y0, %Y[%tx] : !wg
      gpu.barrier
      %y = memref.load %Y[%m] : !wg
      gpu.barrier
      %s = arith.addi %x, %y : i32
      %a = arith.addi %acc, %s : i32
      scf.yield %a : i32
    }
    memref.store %sum, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  return
}

// X: only the even elements are rewritten; the odd ones come from before
// the loop (128 elements, so that no two threads write one element).
!wg128 = memref<128xi32, #gpu.address_space<workgroup>>
func.func @carried_partial(%out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%X : !wg128, %Y : !wg128) {
    %c127 = arith.constant 127 : index
    %m = arith.subi %c127, %tx : index
    %hi = arith.addi %tx, %c64 : index
    %t = arith.index_cast %tx : index to i32
    %thi = arith.index_cast %hi : index to i32
    memref.store %t, %X[%tx] : !wg128
    memref.store %thi, %X[%hi] : !wg128
    gpu.barrier
    %zero = arith.constant 0 : i32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
      %e = arith.muli %tx, %c2 : index
      %ei = arith.index_cast %e : index to i32
      memref.store %ei, %X[%e] : !wg128
      gpu.barrier
      // X[127 - t]: odd for even t, carried from before the loop
      %x = memref.load %X[%m] : !wg128
      gpu.barrier
      %k = arith.constant 1000 : i32
      %y0 = arith.addi %t, %k : i32
      %y1 = arith.addi %thi, %k : i32
      memref.store %y0, %Y[%tx] : !wg128
      memref.store %y1, %Y[%hi] : !wg128
      gpu.barrier
      %y = memref.load %Y[%m] : !wg128
      gpu.barrier
      %s = arith.addi %x, %y : i32
      %a = arith.addi %acc, %s : i32
      scf.yield %a : i32
    }
    memref.store %sum, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  return
}

// X: written only by threads 0-15; the rest come from before the loop.
func.func @carried_tid16(%out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%X : !wg, %Y : !wg) {
    %c63 = arith.constant 63 : index
    %m = arith.subi %c63, %tx : index
    %t = arith.index_cast %tx : index to i32
    memref.store %t, %X[%tx] : !wg
    gpu.barrier
    %zero = arith.constant 0 : i32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
      %lt = arith.cmpi ult, %tx, %c16 : index
      scf.if %lt {
        memref.store %t, %X[%tx] : !wg
      }
      gpu.barrier
      %x = memref.load %X[%m] : !wg
      gpu.barrier
      %k = arith.constant 1000 : i32
      %y0 = arith.addi %t, %k : i32
      memref.store %y0, %Y[%tx] : !wg
      gpu.barrier
      %y = memref.load %Y[%m] : !wg
      gpu.barrier
      %s = arith.addi %x, %y : i32
      %a = arith.addi %acc, %s : i32
      scf.yield %a : i32
    }
    memref.store %sum, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  return
}

// A persistent loop over 4 units: a k-loop of 2 steps on X (written whole,
// barrier, read, barrier), then an epilogue on Y (written whole, barrier,
// read) with no barrier after it: the next unit's X writes need the one
// reuse puts on the back-edge.
func.func @uncarried(%out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%X : !wg, %Y : !wg) {
    %c63 = arith.constant 63 : index
    %m = arith.subi %c63, %tx : index
    %t = arith.index_cast %tx : index to i32
    %zero = arith.constant 0 : i32
    %sum = scf.for %u = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
      %ui = arith.index_cast %u : index to i32
      %kacc = scf.for %k = %c0 to %c2 step %c1 iter_args(%ka = %zero) -> (i32) {
        %ki = arith.index_cast %k : index to i32
        %v = arith.addi %t, %ki : i32
        %v2 = arith.addi %v, %ui : i32
        memref.store %v2, %X[%tx] : !wg
        gpu.barrier
        %x = memref.load %X[%m] : !wg
        gpu.barrier
        %n = arith.addi %ka, %x : i32
        scf.yield %n : i32
      }
      %k1000 = arith.constant 1000 : i32
      %y0 = arith.addi %kacc, %k1000 : i32
      memref.store %y0, %Y[%tx] : !wg
      gpu.barrier
      %y = memref.load %Y[%m] : !wg
      %a = arith.addi %acc, %y : i32
      scf.yield %a : i32
    }
    memref.store %sum, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  return
}

// Counts t with out[t] != expected[t].
func.func @count(%out: memref<64xi32>, %expected: memref<64xi32>) {
  %bad = memref.alloc() : memref<i32>
  ext.compute [#ext.axis<"t", reduce, 64>] ins(%out, %expected : memref<64xi32>, memref<64xi32>)
      outs(%bad : memref<i32>)
      maps [affine_map<(t) -> (t)>, affine_map<(t) -> (t)>, affine_map<(t) -> ()>] combiner(sum) {
  ^bb0(%x: i32, %e: i32):
    %ne = arith.cmpi ne, %x, %e : i32
    %one = arith.extui %ne : i1 to i32
    ext.yield %one : i32
  }
  %u = memref.cast %bad : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// Fills e[t] from f(t) computed on the host by plain loops.
func.func @main() {
  %out = memref.alloc() : memref<64xi32>
  %e = memref.alloc() : memref<64xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  %k1000 = arith.constant 1000 : i32

  // read_first: X after iteration j holds x_j(t) = x_{j-1}(63 - t) + 1 with
  // x_0(t) = t; thread t reads x_j(63 - t); Y read = 1000 + 63 - t.
  call @carried_read_first(%out) : (memref<64xi32>) -> ()
  scf.for %t = %c0 to %c64 step %c1 {
    %m = arith.subi %c63, %t : index
    %ti = arith.index_cast %t : index to i32
    %mi = arith.index_cast %m : index to i32
    // iterations read x_0(m)=m, x_1(m)=t+1, x_2(m)=m+2, x_3(m)=t+3
    %s0 = arith.addi %mi, %ti : i32
    %s1 = arith.addi %s0, %mi : i32
    %s2 = arith.addi %s1, %ti : i32
    %c6 = arith.constant 6 : i32
    %sx = arith.addi %s2, %c6 : i32
    %y = arith.addi %mi, %k1000 : i32
    %c4i = arith.constant 4 : i32
    %y4 = arith.muli %y, %c4i : i32
    %r = arith.addi %sx, %y4 : i32
    memref.store %r, %e[%t] : memref<64xi32>
  }
  call @count(%out, %e) : (memref<64xi32>, memref<64xi32>) -> ()

  // partial: X(127 - t) = 127 - t (rewritten or from before), Y(127 - t) =
  // 1127 - t; 4 iterations.
  call @carried_partial(%out) : (memref<64xi32>) -> ()
  scf.for %t = %c0 to %c64 step %c1 {
    %ti = arith.index_cast %t : index to i32
    %c1254 = arith.constant 1254 : i32
    %t2 = arith.addi %ti, %ti : i32
    %s = arith.subi %c1254, %t2 : i32
    %c4i = arith.constant 4 : i32
    %r = arith.muli %s, %c4i : i32
    memref.store %r, %e[%t] : memref<64xi32>
  }
  call @count(%out, %e) : (memref<64xi32>, memref<64xi32>) -> ()

  // tid16: X(63 - t) reads m (rewritten by threads 0-15 with their id, the
  // rest from before the loop), Y(63 - t) = 1063 - t; 4 iterations.
  scf.for %t = %c0 to %c64 step %c1 {
    %m = arith.subi %c63, %t : index
    %mi = arith.index_cast %m : index to i32
    %c4i = arith.constant 4 : i32
    %y = arith.addi %mi, %k1000 : i32
    %xy = arith.addi %mi, %y : i32
    %r = arith.muli %xy, %c4i : i32
    memref.store %r, %e[%t] : memref<64xi32>
  }
  call @carried_tid16(%out) : (memref<64xi32>) -> ()
  call @count(%out, %e) : (memref<64xi32>, memref<64xi32>) -> ()

  // uncarried: unit u's k-loop sums (63-t)+k+u over k in {0,1}: 2(63-t)+2u+1;
  // thread t reads Y(63 - t) = that for thread 63 - t, i.e. 2t+2u+1, + 1000.
  call @uncarried(%out) : (memref<64xi32>) -> ()
  scf.for %t = %c0 to %c64 step %c1 {
    %ti = arith.index_cast %t : index to i32
    // sum over u of 2t + 2u + 1 + 1000 = 8t + 12 + 4 + 4000
    %c8 = arith.constant 8 : i32
    %t8 = arith.muli %ti, %c8 : i32
    %c4016 = arith.constant 4016 : i32
    %r = arith.addi %t8, %c4016 : i32
    memref.store %r, %e[%t] : memref<64xi32>
  }
  call @count(%out, %e) : (memref<64xi32>, memref<64xi32>) -> ()
  return
}
