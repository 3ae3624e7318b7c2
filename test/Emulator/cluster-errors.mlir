// Thread block clusters used against their contract: each a launch error
// naming what is wrong, never a hang or a wrong result.
//
// A grid that is no whole number of clusters, and a cluster past the 16
// blocks a GPU allows:
// RUN: not ext-run --entry=ragged_grid %s 2>&1 | FileCheck %s --check-prefix=RAGGED
// RAGGED: ext-emu: error: kernel 'ragged_grid_kernel' (launched at {{.*}}): a grid of (3, 2, 1) blocks is not a whole number of clusters of (2, 1, 1) blocks: each grid dimension must be a multiple of the cluster's
// RUN: not ext-run --entry=huge_cluster %s 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: a cluster of (4, 4, 2) = 32 blocks exceeds 16, the most a GPU allows (H100's non-portable cluster size; 8 is the portable one)
//
// A multicast mask naming a block the cluster does not have, or none:
// RUN: not ext-run --entry=mask_beyond %s 2>&1 | FileCheck %s --check-prefix=MASK
// MASK: thread (0, 0, 0) of block (0, 0, 0) (rank 0 of cluster (0, 0, 0)): cp.async.bulk.tensor at {{.*}}cluster-errors.mlir:{{[0-9]+}}:{{[0-9]+}} with multicast mask 0x5, whose bit 2 is beyond its cluster's 2 blocks (ranks 0 to 1)
// RUN: sed 's|%mask = arith.constant 5 : i16|%mask = arith.constant 0 : i16|' %s > %t.zero.mlir
// RUN: not ext-run --entry=mask_beyond %t.zero.mlir 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: with multicast mask 0x0, which names no block
//
// A remote arrival on a block that has exited: block 1's threads arrive on
// block 0's barrier and exit; block 0 waits for them, then arrives on block
// 1's barrier. The kernel needs a cluster barrier before its blocks exit.
// RUN: not ext-run --entry=exited_peer %s 2>&1 | FileCheck %s --check-prefix=EXITED
// RUN: not ext-run --entry=exited_peer --emu-seed=4 %s 2>&1 | FileCheck %s --check-prefix=EXITED
// EXITED: thread (0, 0, 0) of block (0, 0, 0) (rank 0 of cluster (0, 0, 0)): mbarrier.arrive at {{.*}}cluster-errors.mlir:{{[0-9]+}}:{{[0-9]+}} on the shared memory of block (1, 0, 0) (rank 1 of cluster (0, 0, 0)), whose threads have all exited (on a GPU its shared memory may be gone): a block must not exit while its cluster's peers may still use its shared memory; end the kernel with a cluster barrier (nvvm.cluster.arrive, nvvm.cluster.wait)
//
// A cluster barrier block 1 never reaches (it exits): block 0 waits forever,
// a deadlock that names the cluster barrier.
// RUN: not ext-run --entry=unreached %s 2>&1 | FileCheck %s --check-prefix=UNREACHED
// UNREACHED: deadlock: no thread can continue in cluster (0, 0, 0) (32 of 64 threads arrived at its cluster barrier); in block (0, 0, 0): 32 threads wait at the cluster barrier (barrier.cluster.wait) at {{.*}}cluster-errors.mlir:{{[0-9]+}}:{{[0-9]+}}; in block (1, 0, 0): 32 exited
//
// mapa to a rank past the cluster:
// RUN: not ext-run --entry=mapa_rank %s 2>&1 | FileCheck %s --check-prefix=MAPA
// MAPA: mapa at {{.*}} to the block of rank 2, but its cluster (2, 1, 1) has 2 blocks (ranks 0 to 1)
//
// A second arrival before the wait:
// RUN: not ext-run --entry=arrive_twice %s 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: barrier.cluster.arrive at {{.*}}cluster-errors.mlir:{{[0-9]+}}:{{[0-9]+}} arrives again before it waited (barrier.cluster.wait) for the phase it arrived in at {{.*}}cluster-errors.mlir:{{[0-9]+}}:{{[0-9]+}}; a thread arrives once per phase of the cluster barrier
//
// Loads and stores through a shared::cluster pointer are not run:
// RUN: sed 's|// DSMEM-STORE|llvm.store %%a, %%q : i64, !llvm.ptr<7>|' %s > %t.store.mlir
// RUN: not ext-run --entry=mapa_rank %t.store.mlir 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: error: 'llvm.store' op through a shared::cluster pointer (!llvm.ptr<7>, another block's shared memory) is not supported by the CPU emulation

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!map = !nvgpu.tensormap.descriptor<tensor = memref<8x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @ragged_grid() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.printf "never printed\n"
    gpu.terminator
  }
  return
}

func.func @huge_cluster() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c4, %scy = %c4, %scz = %c2)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c2)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.printf "never printed\n"
    gpu.terminator
  }
  return
}

func.func @mask_beyond() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %G = memref.alloc() : memref<8x32xf32>
  %u = memref.cast %G : memref<8x32xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %u box[%c8, %c32] : memref<*xf32> -> !map
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %mask = arith.constant 5 : i16
    %buf = memref.alloca() : memref<8x32xf32, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %bar[%k0], %k1 : !barriers
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %rank = gpu.cluster_block_id x
    %first = arith.cmpi eq, %rank, %k0 : index
    scf.if %first {
      nvgpu.tma.async.load %map[%k0, %k0], %bar[%k0] to %buf multicast_mask = %mask
          : !map, !barriers -> memref<8x32xf32, #gpu.address_space<workgroup>>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.terminator
  }
  return
}

func.func @exited_peer() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %r0 = arith.constant 0 : i32
    %r1 = arith.constant 1 : i32
    %ticks = arith.constant 1000000 : index
    %parity = arith.constant false
    %bar = nvgpu.mbarrier.create -> !barriers
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %k0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%k0], %k32 : !barriers
    }
    nvvm.fence.mbarrier.init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %a = nvgpu.mbarrier.get %bar[%k0] : !barriers -> i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr<3>
    %rank = gpu.cluster_block_id x
    %first = arith.cmpi eq, %rank, %k0 : index
    scf.if %first {
      nvgpu.mbarrier.try_wait.parity %bar[%k0], %parity, %ticks : !barriers
      scf.if %leader {
        %q = nvvm.mapa %p, %r1 : !llvm.ptr<3> -> !llvm.ptr<7>
        nvvm.mbarrier.arrive %q {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
      }
    } else {
      %q = nvvm.mapa %p, %r0 : !llvm.ptr<3> -> !llvm.ptr<7>
      nvvm.mbarrier.arrive %q {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
    }
    gpu.terminator
  }
  return
}

func.func @unreached() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %rank = gpu.cluster_block_id x
    %first = arith.cmpi eq, %rank, %k0 : index
    scf.if %first {
      nvvm.cluster.arrive
      nvvm.cluster.wait
    }
    gpu.terminator
  }
  return
}

func.func @mapa_rank() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %r2 = arith.constant 2 : i32
    %bar = nvgpu.mbarrier.create -> !barriers
    %a = nvgpu.mbarrier.get %bar[%k0] : !barriers -> i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr<3>
    %q = nvvm.mapa %p, %r2 : !llvm.ptr<3> -> !llvm.ptr<7>
    // DSMEM-STORE
    gpu.terminator
  }
  return
}

func.func @arrive_twice() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait
    gpu.terminator
  }
  return
}
