// Atomics across the grid: a counter every thread of 8 blocks x 64 threads
// increments with memref.atomic_rmw (the old values are unique tickets), a
// maximum through memref.generic_atomic_rmw, and a "turnstile" (Stream-K's
// deterministic fixup): block b spins until the lock reaches b, adds its
// partial into the total, fences, and passes the lock on. Blocks start in
// order, so each waits on blocks started before it.

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0 : i32
  %state = memref.alloc() : memref<4xi32>
  %tickets = memref.alloc() : memref<512xi32>
  memref.store %zero, %state[%c0] : memref<4xi32>
  memref.store %zero, %state[%c1] : memref<4xi32>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  memref.store %zero, %state[%c2] : memref<4xi32>
  memref.store %zero, %state[%c3] : memref<4xi32>
  scf.for %i = %c0 to %c512 step %c1 {
    memref.store %zero, %tickets[%i] : memref<512xi32>
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %one = arith.constant 1 : i32
    %c0i = arith.constant 0 : index
    %c1i = arith.constant 1 : index
    %c2i = arith.constant 2 : index
    %c3i = arith.constant 3 : index
    // state[0]: counter; the old value is this thread's ticket.
    %old = memref.atomic_rmw addi %one, %state[%c0i] : (i32, memref<4xi32>) -> i32
    %slot = arith.index_cast %old : i32 to index
    memref.atomic_rmw addi %one, %tickets[%slot] : (i32, memref<512xi32>) -> i32
    // state[1]: max of 3 * global id through a CAS loop.
    %base = arith.muli %bx, %sx : index
    %gid = arith.addi %base, %tx : index
    %g = arith.index_cast %gid : index to i32
    %c3v = arith.constant 3 : i32
    %g3 = arith.muli %g, %c3v : i32
    %prev = memref.generic_atomic_rmw %state[%c1i] : memref<4xi32> {
    ^bb0(%cur: i32):
      %m = arith.maxsi %cur, %g3 : i32
      memref.atomic_yield %m : i32
    }
    // Turnstile: thread 0 of block b waits for state[2] == b, adds b + 1 to
    // state[3] with a plain load/store (the lock protects it), fences, then
    // releases the lock to b + 1.
    %first = arith.cmpi eq, %tx, %c0i : index
    scf.if %first {
      %b = arith.index_cast %bx : index to i32
      scf.while : () -> () {
        %lock = memref.generic_atomic_rmw %state[%c2i] : memref<4xi32> {
        ^bb0(%cur: i32):
          memref.atomic_yield %cur : i32
        }
        %wait = arith.cmpi ne, %lock, %b : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      %t = memref.load %state[%c3i] : memref<4xi32>
      %ten = arith.constant 10 : i32
      %t10 = arith.muli %t, %ten : i32
      %b1 = arith.addi %b, %one : i32
      %t2 = arith.addi %t10, %b1 : i32
      memref.store %t2, %state[%c3i] : memref<4xi32>
      llvm.fence release
      memref.atomic_rmw assign %b1, %state[%c2i] : (i32, memref<4xi32>) -> i32
    }
    gpu.terminator
  }
  %us = memref.cast %state : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%us) : (memref<*xi32>) -> ()
  // Every ticket 0..511 handed out exactly once: count the slots hit once.
  %sum = scf.for %i = %c0 to %c512 step %c1 iter_args(%acc = %zero) -> i32 {
    %v = memref.load %tickets[%i] : memref<512xi32>
    %once = arith.constant 1 : i32
    %ok = arith.cmpi eq, %v, %once : i32
    %inc = arith.extui %ok : i1 to i32
    %a = arith.addi %acc, %inc : i32
    scf.yield %a : i32
  }
  %ones = memref.alloc() : memref<1xi32>
  memref.store %sum, %ones[%c0] : memref<1xi32>
  %uo = memref.cast %ones : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%uo) : (memref<*xi32>) -> ()
  return
}

// counter 512, max 3 * 511, lock 8, turnstile digits in block order.
