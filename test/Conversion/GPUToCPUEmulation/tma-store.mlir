// RUN: ext-opt %s --ext-gpu-to-cpu-emulation | FileCheck %s
// RUN: ext-opt %s --ext-gpu-to-cpu-emulation | FileCheck %s --check-prefix=GONE

// A TMA-store epilogue: the kernel of a module that issues TMA stores notes
// ordinary shared writes from its entry; the async proxy's fences call the
// runtime, other proxy fences go; the store (under its predicate), commit
// and wait_group[.read] are runtime calls.

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%map: !map, %p: i1)
        workgroup(%stage : memref<64x32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %stage[%c0, %c1] : memref<64x32xf32, #gpu.address_space<workgroup>>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>}
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
      gpu.barrier
      nvgpu.tma.async.store %stage to %map[%c0, %c1], predicate = %p
          : memref<64x32xf32, #gpu.address_space<workgroup>> -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 1 {read}
      nvvm.cp.async.bulk.wait_group 0
      gpu.return
    }
  }
  func.func @host(%t: memref<100x72xf32>, %p: i1) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %u = memref.cast %t : memref<100x72xf32> to memref<*xf32>
    %map = nvgpu.tma.create.descriptor %u box[%c64, %c32] : memref<*xf32> -> !map
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%map : !map, %p : i1)
    return
  }
}

// CHECK-LABEL: func.func private @m_k(
// CHECK-SAME: %{{.*}}: i64, %[[P:.*]]: i1)
// CHECK: call @__ext_emu_track_generic_writes() : () -> ()
// CHECK: call @__ext_emu_access(
// CHECK: call @__ext_emu_fence_proxy_async(%{{.*}}) : (i32) -> ()
// CHECK: call @__ext_emu_fence_proxy_async(%{{.*}}) : (i32) -> ()
// CHECK-NOT: __ext_emu_fence_proxy_async
// CHECK: call @__ext_emu_barrier(
// CHECK: scf.if %[[P]] {
// CHECK: call @__ext_emu_tma_store(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i32, i32) -> ()
// CHECK: }
// CHECK: call @__ext_emu_bulk_commit() : () -> ()
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[READ:.*]] = arith.constant 1 : i32
// CHECK: call @__ext_emu_bulk_wait(%[[ONE]], %[[READ]], %{{.*}}) : (i32, i32, i32) -> ()
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[NOREAD:.*]] = arith.constant 0 : i32
// CHECK: call @__ext_emu_bulk_wait(%[[ZERO]], %[[NOREAD]], %{{.*}}) : (i32, i32, i32) -> ()

// GONE-NOT: nvvm.
// GONE-NOT: nvgpu.tma.async.store
