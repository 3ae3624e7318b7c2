// TMA stores used against their contract: each a launch error naming what
// is wrong, whatever the schedule.
//
// Thread 5 writes its part of the stage and does not fence it for the async
// proxy: the copy engine may read stale bytes.
// RUN: not ext-run --entry=missing_fence %s 2>&1 | FileCheck %s --check-prefix=FENCE
// RUN: not ext-run --entry=missing_fence --emu-seed=3 %s 2>&1 | FileCheck %s --check-prefix=FENCE
// FENCE: ext-emu: error: kernel 'missing_fence_kernel' (launched at {{.*}}): thread (0, 0, 0) of block (0, 0, 0): cp.async.bulk.tensor at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}} reads shared memory (workgroup byte 16) that thread (5, 0, 0) of block (0, 0, 0) wrote at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}} without fence.proxy.async: the bulk copy may read stale bytes
//
// The writers fence after the barrier, not before it: nothing orders their
// fences before the store (which fails as an unfenced write or an unordered
// fence, whichever the schedule ran first).
// RUN: not ext-run --entry=fence_after_barrier %s 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: not ext-run --entry=fence_after_barrier --emu-seed=4 %s 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: not ext-run --entry=fence_after_barrier --emu-seed=11 %s 2>&1 | FileCheck %s --check-prefix=LATE
// LATE: thread (0, 0, 0) of block (0, 0, 0): cp.async.bulk.tensor at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}} reads shared memory (workgroup byte {{[0-9]+}}) that thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) wrote at {{.*}}the bulk copy may read stale bytes
//
// The block rewrites the stage (for its next tile) after a barrier, but the
// storing thread waits for the copy's reads only after that barrier:
// RUN: not ext-run --entry=rewrite_before_wait %s 2>&1 | FileCheck %s --check-prefix=REWRITE
// RUN: not ext-run --entry=rewrite_before_wait --emu-seed=5 %s 2>&1 | FileCheck %s --check-prefix=REWRITE
// REWRITE: thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0): {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}} writes shared memory a bulk tensor store still reads (workgroup byte {{[0-9]+}}): the store at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}}, issued by thread (0, 0, 0) of block (0, 0, 0), reads it until a cp.async.bulk.wait_group.read of that thread covers it, and a barrier after that wait orders this write
//
// The storing thread waits for the reads, but no barrier orders its wait
// before the other threads' rewrite. (Round-robin runs the storing thread
// first after the barrier; a schedule that runs another thread's rewrite
// before the store's issue fails it as an unfenced write instead.)
// RUN: not ext-run --entry=wait_without_barrier --emu-schedule=round-robin %s 2>&1 | FileCheck %s --check-prefix=NOBAR
// RUN: env EXT_EMU_THREADS=1 not ext-run --entry=wait_without_barrier --emu-schedule=sequential %s 2>&1 | FileCheck %s --check-prefix=NOBAR
// Under any other schedule it fails one way or the other:
// RUN: not ext-run --entry=wait_without_barrier %s 2>&1 | FileCheck %s --check-prefix=EITHER
// RUN: not ext-run --entry=wait_without_barrier --emu-seed=6 %s 2>&1 | FileCheck %s --check-prefix=EITHER
// EITHER: {{the bulk copy may read stale bytes|writes shared memory a bulk tensor store still reads}}
// NOBAR: thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0): {{.*}}writes shared memory a bulk tensor store still reads (workgroup byte {{[0-9]+}}){{.*}}nothing orders this write after that wait (a barrier after the wait)
//
// Without the wait, the storing thread's own rewrite finds its store in
// flight:
// RUN: sed 's|nvvm.cp.async.bulk.wait_group 0 {read} // NOBAR-WAIT||' %s > %t.nowait.mlir
// RUN: not ext-run --entry=wait_without_barrier --emu-schedule=round-robin %t.nowait.mlir 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: thread (0, 0, 0) of block (0, 0, 0): {{.*}} writes shared memory a bulk tensor store still reads (workgroup byte {{[0-9]+}}): the store at {{.*}}, issued by thread (0, 0, 0) of block (0, 0, 0), reads it until
//
// A wait without .read waits for more (the writes too): rewriting after it
// and a barrier is fine.
// RUN: ext-run --entry=full_wait %s 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: ext-run --entry=full_wait --racecheck --emu-seed=2 %s 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: wrong elements: 0{{$}}
//
// --racecheck sees the store's global writes as its issuing thread's: thread
// 5 writes an element of the output the store writes, nothing ordering them.
// RUN: not ext-run --racecheck --entry=output_race %s 2>&1 | FileCheck %s --check-prefix=OUTRACE
// RUN: not ext-run --racecheck --entry=output_race --emu-seed=8 %s 2>&1 | FileCheck %s --check-prefix=OUTRACE
// OUTRACE: racecheck: 1 data race
// OUTRACE: race: write-after-write on global memory, byte 0 of {{.*}}: write by thread ({{[05]}}, 0, 0) of block (0, 0, 0) at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}}, then write by thread ({{[05]}}, 0, 0) of block (0, 0, 0) at
//
// Two coordinates on a rank-3 map (the host built it from a rank-3 tensor;
// the kernel's map type says rank 2):
// RUN: not ext-run --entry=rank_mismatch %s 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: thread (0, 0, 0) of block (0, 0, 0): {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: cp.async.bulk.tensor (a store) with 2 coordinates on a rank-3 tensor map
//
// A source 16 bytes past a 128-byte boundary:
// RUN: not ext-run --entry=misaligned %s 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: thread (0, 0, 0) of block (0, 0, 0): cp.async.bulk.tensor at {{.*}}tma-store-errors.mlir:{{[0-9]+}}:{{[0-9]+}} reads 8192 bytes from workgroup byte 16 (needs 128-byte alignment and room in the block's {{[0-9]+}} bytes)

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!stage = memref<64x32xf32, #gpu.address_space<workgroup>>

func.func @missing_fence() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k5 = arith.constant 5 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %stage = memref.alloca() : !stage
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    %fences = arith.cmpi ne, %tx, %k5 : index
    scf.if %fences {
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

func.func @fence_after_barrier() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %stage = memref.alloca() : !stage
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    gpu.barrier
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

func.func @rewrite_before_wait() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %stage = memref.alloca() : !stage
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
    }
    gpu.barrier
    // The next tile, while the copy may still read the stage.
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %two, %stage[%i, %j] : !stage
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

func.func @wait_without_barrier() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %stage = memref.alloca() : !stage
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read} // NOBAR-WAIT
    }
    // No barrier: the other threads may run ahead of the wait.
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %two, %stage[%i, %j] : !stage
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

func.func @full_wait() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  %second = memref.alloc() : memref<64x32xf32>
  %u2 = memref.cast %second : memref<64x32xf32> to memref<*xf32>
  %map2 = nvgpu.tma.create.descriptor %u2 box[%c64, %c32] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %stage = memref.alloca() : !stage
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>}
    gpu.barrier
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.barrier
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %two, %stage[%i, %j] : !stage
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map2[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.terminator
  }
  %zero = arith.constant 0 : i32
  %onei = arith.constant 1 : i32
  %onef = arith.constant 1.0 : f32
  %twof = arith.constant 2.0 : f32
  %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%b0 = %zero) -> (i32) {
    %b2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%acc = %b0) -> (i32) {
      %x = memref.load %out[%i, %j] : memref<64x32xf32>
      %y = memref.load %second[%i, %j] : memref<64x32xf32>
      %okx = arith.cmpf oeq, %x, %onef : f32
      %oky = arith.cmpf oeq, %y, %twof : f32
      %ok = arith.andi %okx, %oky : i1
      %next = arith.addi %acc, %onei : i32
      %sel = arith.select %ok, %acc, %next : i32
      scf.yield %sel : i32
    }
    scf.yield %b2 : i32
  }
  vector.print str "wrong elements: "
  vector.print %bad : i32
  return
}

func.func @output_race() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k5 = arith.constant 5 : index
    %k32 = arith.constant 32 : index
    %k128 = arith.constant 128 : index
    %k2048 = arith.constant 2048 : index
    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    %stage = memref.alloca() : !stage
    scf.for %e = %tx to %k2048 step %k128 {
      %i = arith.divui %e, %k32 : index
      %j = arith.remui %e, %k32 : index
      memref.store %one, %stage[%i, %j] : !stage
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0
    }
    %five = arith.cmpi eq, %tx, %k5 : index
    scf.if %five {
      memref.store %three, %out[%k0, %k0] : memref<64x32xf32>
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

!map3 = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @rank_mismatch() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %t3 = memref.alloc() : memref<2x64x32xf32>
  %u = memref.cast %t3 : memref<2x64x32xf32> to memref<*xf32>
  // A rank-3 map (three box sizes) whose type says rank 2.
  %map = nvgpu.tma.create.descriptor %u box[%c1, %c64, %c32] : memref<*xf32> -> !map3
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %stage = memref.alloca() : !stage
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !stage -> !map3
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.terminator
  }
  return
}

!offStage = memref<64x32xf32, strided<[36, 1], offset: 4>, #gpu.address_space<workgroup>>

func.func @misaligned() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<64x32xf32>
  %u = memref.cast %out : memref<64x32xf32> to memref<*xf32>
  %c32_ = arith.constant 32 : index
  %c64_ = arith.constant 64 : index
  %map = nvgpu.tma.create.descriptor %u box[%c64_, %c32_] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %buf = memref.alloca() : memref<65x36xf32, #gpu.address_space<workgroup>>
    %stage = memref.subview %buf[0, 4] [64, 32] [1, 1]
        : memref<65x36xf32, #gpu.address_space<workgroup>> to !offStage
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %k0 : index
    scf.if %leader {
      nvgpu.tma.async.store %stage to %map[%k0, %k0] : !offStage -> !map
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.terminator
  }
  return
}
