module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<8xf32, #gpu.address_space<global>>, %n: index)
        workgroup(%a : memref<3xf32, #gpu.address_space<workgroup>>,
                  %b : memref<4xi64, #gpu.address_space<workgroup>>)
        private(%p : memref<2xf32, #gpu.address_space<private>>) kernel {
      %t = gpu.thread_id x
      %t2 = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%t] : memref<3xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %v, %out[%t2] : memref<8xf32, #gpu.address_space<global>>
      %one = arith.constant 1 : i64
      %old = memref.atomic_rmw addi %one, %b[%c0] : (i64, memref<4xi64, #gpu.address_space<workgroup>>) -> i64
      gpu.return
    }
  }
  func.func @host(%n: index) {
    %d = gpu.alloc (%n) : memref<?xf32, #gpu.address_space<global>>
    %h = memref.alloc() : memref<8xf32, #gpu.address_space<global>>
    gpu.launch_func @m::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
        args(%h : memref<8xf32, #gpu.address_space<global>>, %n : index)
    gpu.dealloc %d : memref<?xf32, #gpu.address_space<global>>
    return
  }
}

// No gpu op is left and no memref keeps a gpu address space.
// The sites: the load, the atomic, the barrier.
// The buffers race reports name: the workgroup buffers (at their offsets) and
// the memref argument (its extent read from the descriptor at launch).

// Three (space, start, bytes) triples.
// Two workgroup buffers, 12 bytes at 0 and 32 bytes at 16: 48 static bytes.

// The thread id is asked once, at the entry.
// A workgroup load reports address, 4 bytes, kind 17 (workgroup | load) and site 0 first.
// A global store is not instrumented by default.
// The atomic: kind 23 (workgroup | read-modify-write | atomic), then a plain
// load/add/store, which no other fiber can interleave.

// The trampoline unpacks `void **` into the kernel's arguments.
