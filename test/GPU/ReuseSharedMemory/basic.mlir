// RUN: ext-opt %s --split-input-file --ext-gpu-reuse-shared-memory | FileCheck %s
// RUN: ext-opt %s --split-input-file --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT


// Two phases: A and B share offset 0, and the barrier already between A's
// last read and B's first write orders them, so none is added (the kernel
// keeps its two barriers).
// CHECK-LABEL: func @sequential_phases
// CHECK:       gpu.launch {{.*}} workgroup(%[[M:.*]] : memref<1024xi8, #gpu.address_space<workgroup>>)
// CHECK-DAG:     memref.view %[[M]][%c0{{.*}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %[[M]][%c0{{.*}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.terminator
// CHECK-NEXT:  } {ext.shared_memory_bytes = 1024 : i64}
// REPORT-LABEL: kernel @sequential_phases
// REPORT:      total 1024 B, lower bound 1024 B, naive sum 1536 B, best-fit decreasing 1024 B; trivial, proved optimal
func.func @sequential_phases(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<256xf32, #gpu.address_space<workgroup>>, %B : memref<128xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %A[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %B[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// Without a barrier between A's last read and B's first write, reuse needs
// one: it goes right before B's first access, at the same level.
// CHECK-LABEL: func @reuse_needs_barrier
// CHECK-COUNT-2: memref.view
// CHECK:         memref.store
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.load
// CHECK-NOT:     gpu.barrier
func.func @reuse_needs_barrier(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Nested lifetimes: B lives inside A's lifetime, so they interfere.
// CHECK-LABEL: func @nested_lifetimes
// CHECK:       workgroup(%{{.*}} : memref<768xi8, #gpu.address_space<workgroup>>)
// REPORT-LABEL: kernel @nested_lifetimes
// REPORT:      total 768 B, lower bound 768 B, naive sum 768 B{{.*}}nothing shared
func.func @nested_lifetimes(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<128xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %a, %out[%tx] : memref<128xf32>
    gpu.terminator
  }
  return
}

// -----

// A chain: A-B and B-C overlap, A and C do not. A and C share; the total is
// max(A + B, B + C) = 192 + 64 = 256 bytes, not A + B + C.
// CHECK-LABEL: func @chain
// CHECK:       workgroup(%{{.*}} : memref<256xi8, #gpu.address_space<workgroup>>)
// REPORT-LABEL: kernel @chain
// REPORT:      total 256 B, lower bound 256 B, naive sum 384 B
func.func @chain(%out: memref<48xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<32xf32, #gpu.address_space<workgroup>>, %B : memref<16xf32, #gpu.address_space<workgroup>>, %C : memref<48xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %f, %B[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %b, %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    %c = memref.load %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    memref.store %c, %out[%tx] : memref<48xf32>
    gpu.terminator
  }
  return
}

// -----

// A buffer used in a loop is live across the whole loop: B, used only in
// the loop's second half, still interferes with A (its data may come from
// the previous iteration's first half).
// CHECK-LABEL: func @loop_carried
// CHECK:       workgroup(%{{.*}} : memref<512xi8, #gpu.address_space<workgroup>>)
// REPORT-LABEL: kernel @loop_carried
// REPORT:      total 512 B, lower bound 512 B, naive sum 512 B
func.func @loop_carried(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %b, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}

// -----

// A buffer used in a loop and one used after it: they share, with a barrier
// after the loop (the last iteration's readers of A are done).
// CHECK-LABEL: func @used_after_loop
// CHECK:       workgroup(%{{.*}} : memref<256xi8, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store
func.func @used_after_loop(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%tx] : memref<64xf32>
    }
    memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Both branches of an scf.if whose condition is uniform (from the block id):
// the whole block takes one side, so the branches' buffers share.
// CHECK-LABEL: func @uniform_branches
// CHECK:       workgroup(%{{.*}} : memref<256xi8, #gpu.address_space<workgroup>>)
func.func @uniform_branches(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %bx, %c0 : index
    scf.if %first {
      memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%tx] : memref<64xf32>
    } else {
      memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %b, %out[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// The same under a thread-dependent condition: threads of one block run both
// branches at once, so the buffers interfere.
// CHECK-LABEL: func @divergent_branches
// CHECK:       workgroup(%{{.*}} : memref<512xi8, #gpu.address_space<workgroup>>)
// CHECK-NOT:   gpu.barrier
func.func @divergent_branches(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %c32 = arith.constant 32 : index
    %low = arith.cmpi ult, %tx, %c32 : index
    scf.if %low {
      memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%tx] : memref<64xf32>
    } else {
      memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %b, %out[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Fragmentation: X and Y live together, then Z (twice their size) with Y.
// Program-order first fit puts X at 0 and Y at 64, so Z cannot start at 0
// and goes to 128 (256 bytes); largest-first puts Z at 0, Y at 128 and X at
// 0, the clique bound of 192 bytes.
// CHECK-LABEL: func @fragmentation
// REPORT-LABEL: kernel @fragmentation
// REPORT:      total 192 B, lower bound 192 B, naive sum 256 B
func.func @fragmentation(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%X : memref<16xf32, #gpu.address_space<workgroup>>, %Y : memref<16xf32, #gpu.address_space<workgroup>>,
                       %Z : memref<32xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %X[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %f, %Y[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %x = memref.load %X[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %x, %Z[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %y = memref.load %Y[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %z = memref.load %Z[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tx] : memref<32xf32>
    memref.store %z, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// Aliases: A is used only through a subview, a cast and a view; its live
// range is theirs.
// CHECK-LABEL: func @aliases
// CHECK:       workgroup(%{{.*}} : memref<256xi8, #gpu.address_space<workgroup>>)
func.func @aliases(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %sub = memref.subview %A[0] [32] [1] : memref<64xf32, #gpu.address_space<workgroup>> to memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    %cast = memref.cast %sub : memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>> to memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %f, %cast[%tx] : memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    %a = memref.load %cast[%tx] : memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Mixed element types: an i8 buffer then an f64 one in a later phase; the
// f64 buffer's offset is a multiple of 8.
// CHECK-LABEL: func @mixed_alignment
// REPORT-LABEL: kernel @mixed_alignment
// REPORT:      memref<3xi8, #gpu.address_space<workgroup>> 3 1 [{{.*}}] 0
// REPORT:      memref<4xf64, #gpu.address_space<workgroup>> 32 8 [{{.*}}] 0
// REPORT:      memref<2xf32, #gpu.address_space<workgroup>> 8 4 [{{.*}}] 32
// REPORT:      total 40 B, lower bound 40 B, naive sum 43 B
func.func @mixed_alignment(%out: memref<4xf64>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<3xi8, #gpu.address_space<workgroup>>, %B : memref<4xf64, #gpu.address_space<workgroup>>, %C : memref<2xf32, #gpu.address_space<workgroup>>) {
    %i = arith.constant 7 : i8
    %d = arith.constant 1.0 : f64
    %f = arith.constant 1.0 : f32
    memref.store %i, %A[%tx] : memref<3xi8, #gpu.address_space<workgroup>>
    memref.store %f, %C[%tx] : memref<2xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<3xi8, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %d, %B[%tx] : memref<4xf64, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<4xf64, #gpu.address_space<workgroup>>
    %c = memref.load %C[%tx] : memref<2xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<4xf64>
    gpu.terminator
  }
  return
}

// -----

// Double buffering: two stages used in every iteration interfere.
// CHECK-LABEL: func @double_buffered
// CHECK:       workgroup(%{{.*}} : memref<512xi8, #gpu.address_space<workgroup>>)
func.func @double_buffered(%in: memref<1024xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%S0 : memref<64xf32, #gpu.address_space<workgroup>>, %S1 : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = memref.load %in[%tx] : memref<1024xf32>
    memref.store %f, %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %f) -> (f32) {
      memref.store %acc, %S1[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %S1[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %x, %y : f32
      memref.store %s, %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.yield %s : f32
    }
    memref.store %r, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A kernel with one buffer is left as it was, its footprint recorded.
// CHECK-LABEL: func @single_buffer
// CHECK:       workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:   memref.view
// CHECK:       } {ext.shared_memory_bytes = 256 : i64}
func.func @single_buffer(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Workgroup memref.allocs in an outlined gpu.func are packed too, and their
// deallocs go away.
// CHECK-LABEL: gpu.func @outlined
// CHECK-SAME:    workgroup(%[[M:.*]] : memref<256xi8, #gpu.address_space<workgroup>>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         gpu.return
gpu.module @kernels {
  gpu.func @outlined(%out: memref<64xf32>) kernel {
    %tx = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    %A = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.dealloc %A : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %B = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.return
  }
}

// -----

// A buffer whose address is taken (a wgmma descriptor's, say) is aligned to
// 1024 bytes, the others to their elements: whatever the packing's order,
// T's offset is a multiple of 1024.
// REPORT-LABEL: kernel @address_taken
// REPORT-DAG: memref<12xf32, #gpu.address_space<workgroup>> 48 4 {{.*}}
// REPORT-DAG: memref<512xf32, #gpu.address_space<workgroup>> 2048 1024 {{.*}} {{(0|1024|2048)$}}
func.func @address_taken(%out: memref<512xf32>, %addr: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%S : memref<12xf32, #gpu.address_space<workgroup>>, %T : memref<512xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %S[%tx] : memref<12xf32, #gpu.address_space<workgroup>>
    memref.store %f, %T[%tx] : memref<512xf32, #gpu.address_space<workgroup>>
    %p = memref.extract_aligned_pointer_as_index %T : memref<512xf32, #gpu.address_space<workgroup>> -> index
    memref.store %p, %addr[%c0] : memref<1xindex>
    %s = memref.load %S[%tx] : memref<12xf32, #gpu.address_space<workgroup>>
    %t = memref.load %T[%tx] : memref<512xf32, #gpu.address_space<workgroup>>
    %u = arith.addf %s, %t : f32
    memref.store %u, %out[%tx] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// A's address is taken (as a wgmma matrix descriptor is, and LICM hoists it
// out of the loop) and read through after B's accesses: A is live until
// then, so A and B must not share bytes. Before, the address's later use
// did not count, A looked dead after the store, and B took its bytes (the
// attention kernel's wgmma read K's tile for V's).
// CHECK-LABEL: func @address_read_later
// CHECK-DAG:     memref.view %{{.*}}[%c0{{.*}}][] : memref<{{.*}}xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %{{.*}}[%c1024{{.*}}][] : memref<{{.*}}xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
func.func private @read_through(i64) -> f32
func.func @address_read_later(%out: memref<256xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<256xf32, #gpu.address_space<workgroup>>, %B : memref<256xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    %p = memref.extract_aligned_pointer_as_index %A : memref<256xf32, #gpu.address_space<workgroup>> -> index
    %p64 = arith.index_cast %p : index to i64
    gpu.barrier
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %B[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      %a = func.call @read_through(%p64) : (i64) -> f32
      %s = arith.addf %a, %b : f32
      memref.store %s, %out[%tx] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Views made up front (as ext-alloc-shared-to-workgroup makes them, at the
// top of the kernel) are not accesses: B's interval starts at its first
// store, after A's last read, so they share offset 0 (one barrier added
// between them). An attention step's value tile copied after its scores
// takes the key tile's bytes this way.
// CHECK-LABEL: func @views_made_up_front
// CHECK-DAG:     memref.view %[[M:.*]][%c0{{.*}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %[[M]][%c0{{.*}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.load
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store
// CHECK:       } {ext.shared_memory_bytes = 1024 : i64}
func.func @views_made_up_front(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<256xf32, #gpu.address_space<workgroup>>, %B : memref<256xf32, #gpu.address_space<workgroup>>) {
    %va = memref.reinterpret_cast %A to offset: [0], sizes: [16, 16], strides: [16, 1] : memref<256xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    %vb = memref.reinterpret_cast %B to offset: [0], sizes: [16, 16], strides: [16, 1] : memref<256xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    %f = arith.constant 1.0 : f32
    memref.store %f, %va[%tx, %tx] : memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %va[%tx, %tx] : memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    memref.store %a, %vb[%tx, %tx] : memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    %b = memref.load %vb[%tx, %tx] : memref<16x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
