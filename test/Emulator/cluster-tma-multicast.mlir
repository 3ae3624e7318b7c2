// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: ext-run --emu-seed=7 %s | FileCheck %s
// RUN: ext-run --emu-schedule=round-robin %s | FileCheck %s
// RUN: env EXT_EMU_THREADS=1 ext-run --emu-schedule=sequential %s | FileCheck %s
// RUN: env EXT_EMU_THREADS=3 ext-run --emu-seed=11 %s | FileCheck %s
// A producer and its consumers across the two blocks of each 2x1x1 thread
// block cluster (a grid of two clusters), as a TMA-multicast GEMM's
// mainloop runs them: thread 0 of block rank 0 loads each 8x32 box of its
// cluster's rows once and multicasts it (mask 0b11) into the same stage of
// both blocks, over 2 stages and 6 rounds; each block's thread 0 expects the
// box's bytes on its own full barrier, every thread of both blocks waits
// there, copies the stage to its block's output, and releases the stage
// with an arrival on block 0's empty barrier (block 1's through nvvm.mapa
// and a cluster-scope nvvm.mbarrier.arrive, block 0's a plain local one).
// The inits go before a relaxed cluster barrier, and a cluster barrier ends
// the kernel, so no block exits while its peer may still arrive on its
// barriers. Both blocks of each cluster see exactly their cluster's rows,
// under any schedule and worker count, and racecheck is clean.
// CHECK: wrong elements: 0{{$}}

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!map = !nvgpu.tensormap.descriptor<tensor = memref<8x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!stage = memref<8x32xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>

func.func @main() {
  %c4 = arith.constant 4 : index
  %c96 = arith.constant 96 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c128 = arith.constant 128 : index
  // G[i, j] = 32 i + j; cluster c loads rows [48 c, 48 c + 48).
  %G = memref.alloc() : memref<96x32xf32>
  %Out = memref.alloc() : memref<4x48x32xf32>
  %none = arith.constant -1.0 : f32
  scf.for %i = %c0 to %c96 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      %e = affine.apply affine_map<(i, j) -> (i * 32 + j)>(%i, %j)
      %ei = arith.index_cast %e : index to i32
      %v = arith.sitofp %ei : i32 to f32
      memref.store %v, %G[%i, %j] : memref<96x32xf32>
    }
  }
  scf.for %b = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c48 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        memref.store %none, %Out[%b, %i, %j] : memref<4x48x32xf32>
      }
    }
  }
  %u = memref.cast %G : memref<96x32xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %u box[%c8, %c32] : memref<*xf32> -> !map
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k6 = arith.constant 6 : index
    %k8 = arith.constant 8 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k256 = arith.constant 256 : index
    %bytes = arith.constant 1024 : index
    %ticks = arith.constant 10000000 : index
    %mask = arith.constant 3 : i16
    %rank0 = arith.constant 0 : i32
    %buf = memref.alloca() : memref<2x8x32xf32, #gpu.address_space<workgroup>>
    %full = nvgpu.mbarrier.create -> !barriers
    %empty = nvgpu.mbarrier.create -> !barriers
    %tid = gpu.thread_id x
    %rank = gpu.cluster_block_id x
    %cluster = gpu.cluster_id x
    %k48 = arith.constant 48 : index
    %rows = arith.muli %cluster, %k48 : index
    %leader = arith.cmpi eq, %tid, %k0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %full[%k0], %k1 : !barriers
      nvgpu.mbarrier.init %full[%k1], %k1 : !barriers
      nvgpu.mbarrier.init %empty[%k0], %k256 : !barriers
      nvgpu.mbarrier.init %empty[%k1], %k256 : !barriers
    }
    // The inits before any peer's arrival or multicast.
    nvvm.fence.mbarrier.init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %first = arith.cmpi eq, %rank, %k0 : index
    %producer = arith.andi %leader, %first : i1
    scf.for %r = %k0 to %k6 step %k1 {
      %s = arith.remui %r, %k2 : index
      %round = arith.divui %r, %k2 : index
      %fp = arith.remui %round, %k2 : index
      %fullParity = arith.index_cast %fp : index to i1
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %full[%s], %bytes : !barriers
      }
      scf.if %producer {
        %reuse = arith.cmpi uge, %r, %k2 : index
        scf.if %reuse {
          %prev = arith.subi %round, %k1 : index
          %ep = arith.remui %prev, %k2 : index
          %emptyParity = arith.index_cast %ep : index to i1
          nvgpu.mbarrier.try_wait.parity %empty[%s], %emptyParity, %ticks : !barriers
        }
        %box = arith.muli %r, %k8 : index
        %row = arith.addi %rows, %box : index
        %dst = memref.subview %buf[%s, 0, 0] [1, 8, 32] [1, 1, 1]
            : memref<2x8x32xf32, #gpu.address_space<workgroup>> to !stage
        nvgpu.tma.async.load %map[%k0, %row], %full[%s] to %dst multicast_mask = %mask
            : !map, !barriers -> !stage
      }
      nvgpu.mbarrier.try_wait.parity %full[%s], %fullParity, %ticks : !barriers
      scf.for %e = %tid to %k256 step %k128 {
        %i = arith.divui %e, %k32 : index
        %j = arith.remui %e, %k32 : index
        %v = memref.load %buf[%s, %i, %j] : memref<2x8x32xf32, #gpu.address_space<workgroup>>
        %base = arith.muli %r, %k8 : index
        %gi = arith.addi %base, %i : index
        memref.store %v, %Out[%bx, %gi, %j] : memref<4x48x32xf32>
      }
      // Stage s is free again: tell the producer, on block 0's barrier
      // (its own, from block 0).
      %a = nvgpu.mbarrier.get %empty[%s] : !barriers -> i64
      %p = llvm.inttoptr %a : i64 to !llvm.ptr<3>
      scf.if %first {
        %token = nvvm.mbarrier.arrive %p : !llvm.ptr<3> -> i64
      } else {
        %q = nvvm.mapa %p, %rank0 : !llvm.ptr<3> -> !llvm.ptr<7>
        nvvm.mbarrier.arrive %q {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
      }
    }
    // No block exits while a peer may still arrive on its barriers.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.terminator
  }
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // Out[b] must be G's rows of block b's cluster.
  %bad = scf.for %b = %c0 to %c4 step %c1 iter_args(%b0 = %zero) -> (i32) {
    %cl = arith.divui %b, %c2 : index
    %first = arith.muli %cl, %c48 : index
    %b3 = scf.for %i = %c0 to %c48 step %c1 iter_args(%b1 = %b0) -> (i32) {
      %gi = arith.addi %first, %i : index
      %b2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%acc = %b1) -> (i32) {
        %g = memref.load %G[%gi, %j] : memref<96x32xf32>
        %o = memref.load %Out[%b, %i, %j] : memref<4x48x32xf32>
        %ok = arith.cmpf oeq, %g, %o : f32
        %next = arith.addi %acc, %one : i32
        %sel = arith.select %ok, %acc, %next : i32
        scf.yield %sel : i32
      }
      scf.yield %b2 : i32
    }
    scf.yield %b3 : i32
  }
  vector.print str "wrong elements: "
  vector.print %bad : i32
  return
}
