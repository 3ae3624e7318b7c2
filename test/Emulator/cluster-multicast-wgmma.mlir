// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=5 %s | FileCheck %s
// RUN: ext-run --emu-schedule=round-robin %s | FileCheck %s
// A TMA-multicast GEMM's mainloop on a 2x1x1 cluster: D = sum over 4
// rounds of A_r B, one warpgroup per block. Thread 0 of block rank 0 loads
// each 64x64 f16 A_r tile once (128-byte swizzle) and multicasts it into
// stage r % 2 of both blocks; each block has its own B. Every thread waits
// for its block's full barrier, multiplies (nvgpu.warpgroup.mma: 4
// wgmma.m64n64k16 reading the stage through descriptors), waits for its
// MMAs (wgmma.wait_group 0), then releases the stage on block 0's empty
// barrier (nvvm.mapa + a cluster-scope nvvm.mbarrier.arrive). Both blocks'
// D are exact.
// CHECK: wrong elements: 0{{$}}
//
// The release carries the MMAs' retirement to the producer: when it
// multicasts into block 1's stage again, what block 1's warpgroup read is
// known retired (through the empty barrier it waited on, with block 1's
// warpgroup named as block 1's, not as the producer's own warpgroup 0).
// Releasing the stage before waiting for the MMAs that read it lets the
// next multicast write under them: an error, in flight or not known
// retired.
// RUN: sed -e '/retired before the release/d' -e 's|// RETIRE-LATE|nvvm.wgmma.wait.group.sync.aligned 0|' %s > %t.late.mlir
// RUN: not ext-run %t.late.mlir 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: not ext-run --emu-seed=3 %t.late.mlir 2>&1 | FileCheck %s --check-prefix=LATE
// LATE: thread (0, 0, 0) of block (0, 0, 0) (rank 0 of cluster (0, 0, 0)): {{.*}} issues a bulk tensor copy (multicast) into shared memory (workgroup byte {{[0-9]+}} of block (1, 0, 0) (rank 1 of cluster (0, 0, 0))) that the warpgroup MMA at {{.*}} reads{{( while its group is in flight|: another thread's wait retired its group, but nothing orders this write after that wait)}}

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!bbarrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
!tile = memref<64x64xf16, strided<[64, 1], offset: ?>, 3>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  // A[i, k] = ((3 i + 5 k) mod 7) - 3 over 4 rounds of 64 rows;
  // B[b][k, n] = ((k + 2 n + 66 b) mod 5) - 2 for block b.
  %A = memref.alloc() : memref<256x64xf16>
  %B = memref.alloc() : memref<128x64xf16>
  %D = memref.alloc() : memref<2x64x64xf32>
  %R = memref.alloc() : memref<2x64x64xf32>
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %k = %c0 to %c64 step %c1 {
      %a = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 7 - 3)>(%i, %k)
      %ai = arith.index_cast %a : index to i32
      %af = arith.sitofp %ai : i32 to f16
      memref.store %af, %A[%i, %k] : memref<256x64xf16>
    }
  }
  scf.for %r = %c0 to %c128 step %c1 {
    scf.for %n = %c0 to %c64 step %c1 {
      %b = affine.apply affine_map<(r, n) -> ((r + n * 2 + (r floordiv 64) * 2) mod 5 - 2)>(%r, %n)
      %bi = arith.index_cast %b : index to i32
      %bf = arith.sitofp %bi : i32 to f16
      memref.store %bf, %B[%r, %n] : memref<128x64xf16>
    }
  }
  // The reference: R[b][m, n] = sum over rows i = 64 r + m, k of A[i, k] B[b][k, n].
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %m = %c0 to %c64 step %c1 {
      scf.for %n = %c0 to %c64 step %c1 {
        %s = scf.for %i = %m to %c256 step %c64 iter_args(%acc0 = %zero) -> (f32) {
          %s1 = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc1 = %acc0) -> (f32) {
            %brow = affine.apply affine_map<(b, k) -> (b * 64 + k)>(%b, %k)
            %a = memref.load %A[%i, %k] : memref<256x64xf16>
            %bv = memref.load %B[%brow, %n] : memref<128x64xf16>
            %a32 = arith.extf %a : f16 to f32
            %b32 = arith.extf %bv : f16 to f32
            %p = arith.mulf %a32, %b32 : f32
            %acc2 = arith.addf %acc1, %p : f32
            scf.yield %acc2 : f32
          }
          scf.yield %s1 : f32
        }
        memref.store %s, %R[%b, %m, %n] : memref<2x64x64xf32>
      }
    }
  }
  %uA = memref.cast %A : memref<256x64xf16> to memref<*xf16>
  %uB = memref.cast %B : memref<128x64xf16> to memref<*xf16>
  %mapA = nvgpu.tma.create.descriptor %uA box[%c64, %c64] : memref<*xf16> -> !mapA
  %mapB = nvgpu.tma.create.descriptor %uB box[%c64, %c64] : memref<*xf16> -> !mapB

  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k64 = arith.constant 64 : index
    %k256 = arith.constant 256 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 10000000 : index
    %mask = arith.constant 3 : i16
    %rank0 = arith.constant 0 : i32
    %false = arith.constant false
    // Swizzled tiles at 1024-byte multiples: the stages, then B.
    %stages = memref.alloca() : memref<2x64x64xf16, 3>
    %btile = memref.alloca() : memref<64x64xf16, 3>
    %full = nvgpu.mbarrier.create -> !barriers
    %empty = nvgpu.mbarrier.create -> !barriers
    %bbar = nvgpu.mbarrier.create -> !bbarrier
    %tid = gpu.thread_id x
    %rank = gpu.cluster_block_id x
    %leader = arith.cmpi eq, %tid, %k0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %full[%k0], %k1 : !barriers
      nvgpu.mbarrier.init %full[%k1], %k1 : !barriers
      nvgpu.mbarrier.init %empty[%k0], %k256 : !barriers
      nvgpu.mbarrier.init %empty[%k1], %k256 : !barriers
      nvgpu.mbarrier.init %bbar[%k0], %k1 : !bbarrier
      %brow = arith.muli %rank, %k64 : index
      nvgpu.mbarrier.arrive.expect_tx %bbar[%k0], %bytes : !bbarrier
      nvgpu.tma.async.load %mapB[%k0, %brow], %bbar[%k0] to %btile
          : !mapB, !bbarrier -> memref<64x64xf16, 3>
    }
    nvvm.fence.mbarrier.init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    nvgpu.mbarrier.try_wait.parity %bbar[%k0], %false, %ticks : !bbarrier
    %first = arith.cmpi eq, %rank, %k0 : index
    %producer = arith.andi %leader, %first : i1
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %res = scf.for %r = %k0 to %k4 step %k1 iter_args(%c = %init) -> (!acc) {
      %s = arith.remui %r, %k2 : index
      %round = arith.divui %r, %k2 : index
      %fp = arith.remui %round, %k2 : index
      %fullParity = arith.index_cast %fp : index to i1
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %full[%s], %bytes : !barriers
      }
      %stage = memref.subview %stages[%s, 0, 0] [1, 64, 64] [1, 1, 1]
          : memref<2x64x64xf16, 3> to !tile
      scf.if %producer {
        %reuse = arith.cmpi uge, %r, %k2 : index
        scf.if %reuse {
          %prev = arith.subi %round, %k1 : index
          %ep = arith.remui %prev, %k2 : index
          %emptyParity = arith.index_cast %ep : index to i1
          nvgpu.mbarrier.try_wait.parity %empty[%s], %emptyParity, %ticks : !barriers
        }
        %row = arith.muli %r, %k64 : index
        nvgpu.tma.async.load %mapA[%k0, %row], %full[%s] to %stage multicast_mask = %mask
            : !mapA, !barriers -> !tile
      }
      nvgpu.mbarrier.try_wait.parity %full[%s], %fullParity, %ticks : !barriers
      %da = nvgpu.warpgroup.generate.descriptor %stage, %mapA
          : !tile, !mapA -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
      %db = nvgpu.warpgroup.generate.descriptor %btile, %mapB
          : memref<64x64xf16, 3>, !mapB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
      %d = nvgpu.warpgroup.mma %da, %db, %c {transposeB}
          : <tensor = memref<64x64xf16, 3>>, <tensor = memref<64x64xf16, 3>>, <fragmented = vector<64x64xf32>>
          -> <fragmented = vector<64x64xf32>>
      nvvm.wgmma.wait.group.sync.aligned 0 // retired before the release
      // Stage s is free again: tell the producer, on block 0's barrier.
      %a = nvgpu.mbarrier.get %empty[%s] : !barriers -> i64
      %p = llvm.inttoptr %a : i64 to !llvm.ptr<3>
      %q = nvvm.mapa %p, %rank0 : !llvm.ptr<3> -> !llvm.ptr<7>
      nvvm.mbarrier.arrive %q {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
      // RETIRE-LATE
      scf.yield %d : !acc
    }
    %out = memref.subview %D[%bx, 0, 0] [1, 64, 64] [1, 1, 1]
        : memref<2x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    nvgpu.warpgroup.mma.store %res, %out
        : <fragmented = vector<64x64xf32>> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    // No block exits while its peer may still arrive on its barriers.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.terminator
  }
  %izero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bad = scf.for %b = %c0 to %c2 step %c1 iter_args(%e0 = %izero) -> (i32) {
    %e3 = scf.for %m = %c0 to %c64 step %c1 iter_args(%e1 = %e0) -> (i32) {
      %e4 = scf.for %n = %c0 to %c64 step %c1 iter_args(%e2 = %e1) -> (i32) {
        %x = memref.load %D[%b, %m, %n] : memref<2x64x64xf32>
        %y = memref.load %R[%b, %m, %n] : memref<2x64x64xf32>
        %ok = arith.cmpf oeq, %x, %y : f32
        %next = arith.addi %e2, %one : i32
        %sel = arith.select %ok, %e2, %next : i32
        scf.yield %sel : i32
      }
      scf.yield %e4 : i32
    }
    scf.yield %e3 : i32
  }
  vector.print str "wrong elements: "
  vector.print %bad : i32
  return
}
