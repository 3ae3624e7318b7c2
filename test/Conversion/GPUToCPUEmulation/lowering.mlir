// RUN: ext-opt %s --ext-gpu-to-cpu-emulation -split-input-file | FileCheck %s
// RUN: ext-opt %s --ext-gpu-to-cpu-emulation -split-input-file | FileCheck %s --check-prefix=GONE

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
// GONE-NOT: gpu.
// GONE-NOT: #gpu.address_space
// The sites: the load, the atomic, the barrier.
// CHECK: llvm.mlir.global internal constant @__ext_emu_sites("{{.*}}lowering.mlir:13:12\00{{.*}}lowering.mlir:17:14\00{{.*}}lowering.mlir:14:7\00\00")
// The buffers race reports name: the workgroup buffers (at their offsets) and
// the memref argument (its extent read from the descriptor at launch); and
// the private memory a thread keeps on its stack (8 bytes), which the launch
// grows the stacks by.
// CHECK: llvm.mlir.global internal constant @__ext_emu_buffers("workgroup buffer 0 (memref<3xf32>, at {{.*}}lowering.mlir:7:19)\00workgroup buffer 1 (memref<4xi64>, at {{.*}}lowering.mlir:8:19)\00private memory of @k (per thread)\00argument 0 of @k (memref<8xf32>, at {{.*}}lowering.mlir:6:17)\00\00")

// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[N:.*]]: index)
// The dependencies' events, then the arguments' slots.
// CHECK:   %[[DEPS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK:   %[[SLOTS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// Four (space, start, bytes) triples.
// CHECK:   %[[TWELVE:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK:   %[[RANGES:.*]] = llvm.alloca %[[TWELVE]] x i64
// CHECK:   %[[D:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:   %[[H:.*]] = memref.alloc() : memref<8xf32>
// CHECK:   %[[HD:.*]] = builtin.unrealized_conversion_cast %[[H]] : memref<8xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:   %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:   %[[ENTRY:.*]] = constant @m_k_emu_entry : (!llvm.ptr) -> ()
// CHECK:   memref.extract_strided_metadata %[[H]] : memref<8xf32>
// CHECK:   memref.extract_aligned_pointer_as_index %[[H]] : memref<8xf32> -> index
// Two workgroup buffers, 12 bytes at 0 and 32 bytes at 16: 48 static bytes.
// CHECK:   %[[STATIC:.*]] = arith.constant 48 : index
// Two arguments and their sizes; then no dependency and a synchronous launch.
// CHECK:   call @__ext_emu_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ENTRY]], %[[SLOTS]], %[[TWO:.*]], %[[SIZES:.*]], %[[N]], %[[N]], %[[N]], %[[N]], %[[N]], %[[N]], %[[STATIC]], %{{.*}}, %[[BUFFERS:.*]], %[[THREE:.*]], %[[RANGES]], %[[DEPS]], %[[ZERO:.*]], %[[SYNC:.*]])
// CHECK:   memref.dealloc %[[D]] : memref<?xf32>

// CHECK-LABEL: func.func private @m_k(
// CHECK-SAME: %[[OUT:.*]]: memref<8xf32>, %{{.*}}: index)
// The thread id is asked once, at the entry.
// CHECK:   %[[TX:.*]] = call @__ext_emu_thread_id(%{{.*}}) : (i32) -> i64
// CHECK:   %[[T:.*]] = arith.index_cast %[[TX]] : i64 to index
// CHECK-NOT: @__ext_emu_thread_id
// CHECK:   %[[BASE:.*]] = call @__ext_emu_shared_base() : () -> !llvm.ptr
// CHECK:   llvm.getelementptr %[[BASE]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:   %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<3xf32>
// CHECK:   llvm.getelementptr %[[BASE]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:   %[[B:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<4xi64>
// CHECK:   memref.alloca() : memref<2xf32>
// A workgroup load reports address, 4 bytes, kind 17 (workgroup | load) and site 0 first.
// CHECK:   memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:   %[[KL:.*]] = arith.constant 17 : i32
// CHECK:   %[[S0:.*]] = arith.constant 0 : i32
// CHECK:   call @__ext_emu_access(%{{.*}}, %{{.*}}, %[[KL]], %[[S0]])
// CHECK:   memref.load %[[A]][%[[T]]] : memref<3xf32>
// CHECK:   %[[S2:.*]] = arith.constant 2 : i32
// CHECK:   call @__ext_emu_barrier(%[[S2]]) : (i32) -> ()
// A global store is not instrumented by default.
// CHECK-NOT: __ext_emu_access
// CHECK:   memref.store %{{.*}}, %[[OUT]][%[[T]]] : memref<8xf32>
// The atomic: kind 215 (workgroup | read-modify-write | atomic | acq_rel), then a plain
// load/add/store, which no other fiber can interleave.
// CHECK:   %[[KA:.*]] = arith.constant 215 : i32
// CHECK:   call @__ext_emu_access(%{{.*}}, %{{.*}}, %[[KA]], %{{.*}})
// CHECK:   %[[OLD:.*]] = memref.load %[[B]]
// CHECK:   %[[NEW:.*]] = arith.addi %{{.*}}, %[[OLD]] : i64
// CHECK:   memref.store %[[NEW]], %[[B]]
// CHECK:   return

// The trampoline unpacks `void **` into the kernel's arguments.
// CHECK-LABEL: func.func private @m_k_emu_entry(
// CHECK-SAME: %[[ARGS:.*]]: !llvm.ptr)
// CHECK:   %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:   %[[S:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[DESC:.*]] = llvm.load %[[S]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:   %[[M:.*]] = builtin.unrealized_conversion_cast %[[DESC]] : {{.*}} to memref<8xf32>
// CHECK:   %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1]
// CHECK:   %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:   call @m_k(%[[M]], %[[I]]) : (memref<8xf32>, index) -> ()

// -----

// A view of workgroup memory names the bytes it covers for race reports:
// its address and extent come from its descriptor, its name from its type and
// location.
// CHECK: llvm.mlir.global internal constant @__ext_emu_view_name("'memref.view' (memref<4xf32>, at {{.*}}lowering.mlir:[[@LINE+10]]:12)\00")
// CHECK-LABEL: func.func private @views_v(
// CHECK:   %[[VIEW:.*]] = memref.view
// CHECK:   memref.extract_strided_metadata %[[VIEW]]
// CHECK:   %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK:   %[[NAME:.*]] = llvm.mlir.addressof @__ext_emu_view_name
// CHECK:   call @__ext_emu_name_shared(%[[NAME]], %{{.*}}, %{{.*}}) : (!llvm.ptr, index, index) -> ()
module attributes {gpu.container_module} {
  gpu.module @views {
    gpu.func @v(%at: index) workgroup(%raw : memref<32xi8, #gpu.address_space<workgroup>>) kernel {
      %v = memref.view %raw[%at][] : memref<32xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// The sites an instrumentation pass numbered before (ext.emu_sites) keep their
// numbers; the emulation's own follow them.
// CHECK: llvm.mlir.global internal constant @__ext_emu_sites("earlier site\00{{.*}}lowering.mlir:[[@LINE+7]]:7\00\00")
// CHECK-LABEL: func.func private @continued_k(
// CHECK:   %[[S1:.*]] = arith.constant 1 : i32
// CHECK:   call @__ext_emu_barrier(%[[S1]])
module attributes {gpu.container_module} {
  gpu.module @continued attributes {ext.emu_sites = ["earlier site"]} {
    gpu.func @k() kernel {
      gpu.barrier
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @continued::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// A module without gpu ops is left exactly as it is.
// CHECK-LABEL: func.func @plain(
// CHECK-NEXT:   %[[A:.*]] = memref.alloc() : memref<4xf32, 3>
// CHECK-NEXT:   return
// CHECK-NOT: __ext_emu
func.func @plain() {
  %a = memref.alloc() : memref<4xf32, 3>
  return
}
