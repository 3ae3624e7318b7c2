// Upstream MLIR's sm90 integration test
// (mlir/test/Integration/GPU/CUDA/sm90/gemm_f32_f16_f16_128x128x128.mlir):
// the same program, written here: a 128x128x128 GEMM (f32 += f16 * f16) in
// one CTA of one warpgroup, A and B loaded by TMA (128-byte swizzle) into
// two stages guarded by mbarriers (arrive.expect_tx, try_wait.parity),
// multiplied by nvgpu.warpgroup.mma (16 wgmma.m64n128k16, descriptors from
// nvgpu.warpgroup.generate.descriptor, wait_group 1 in flight), stored
// through shared memory, checked on the host against linalg.matmul, with
// upstream's CHECK lines. The emulator runs every op with the hardware's
// semantics (runtime/cpu/Tma.cpp, WarpgroupMma.cpp).
//
// ext-gpu-pipeline takes it to PTX that ptxas assembles for sm_90a (its
// warpgroup accumulator, carried by the k-loop, is converted with the loop:
// convert-nvgpu-to-nvvm runs before scf-to-cf).
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90a" | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510 %}
// PTXAS: 0 bytes spill stores
//
// In lock step (threads rotate at each yield, as a warpgroup's warps run on
// a GPU) it prints upstream's result:
// RUN: ext-run --emu-schedule=round-robin %s | FileCheck %s
// CHECK: Correct Results :{{ *}}16384{{$}}
// CHECK: Incorrect Results :{{ *}}0{{$}}
//
// The program has a race, which racecheck names: each thread stores its
// accumulators to shared memory (nvgpu.warpgroup.mma.store) and the
// epilogue reads rows other warps stored, with no barrier between. With
// threads drifting apart (the default schedule) it reads rows not yet
// stored.
// RUN: not ext-run --racecheck %s 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: racecheck: 1 data race
// RACE: read-after-write on shared memory, {{.*}}gemm.mlir:[[STORE:[0-9]+]]:5, then read by {{.*}}gemm.mlir:[[READ:[0-9]+]]:12
//
// With a barrier there it is right under any schedule, racecheck clean.
// RUN: sed 's|// EPILOGUE-BARRIER|gpu.barrier|' %s > %t.fixed.mlir
// RUN: ext-run --racecheck %t.fixed.mlir | FileCheck %s
// RUN: ext-run --emu-seed=7 %t.fixed.mlir | FileCheck %s
//
// nvgpu.warpgroup.mma leaves its group in flight (wait_group 1): a store to
// its A tile before the wait is reported.
// RUN: sed 's|// IN-FLIGHT-[W]RITE|%%h = arith.constant 0.0 : f16\n      memref.store %%h, %%a[%%k0, %%k0] : memref<128x64xf16, strided<[64, 1], offset: ?>, 3>|' %s > %t.write.mlir
// RUN: not ext-run %t.write.mlir 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: writes shared memory (workgroup byte {{[0-9]+}}) that the warpgroup MMA at {{.*}} reads while its group is in flight (wgmma.wait_group first)
//
// An expect_tx that does not match the bytes the copies bring leaves the
// phase open: reported as a hang, saying what the wait waits for.
// RUN: sed 's|%bytes = arith.constant 32768|%bytes = arith.constant 40000|' %s > %t.tx.mlir
// RUN: env EXT_EMU_SPIN_LIMIT=100000 not ext-run %t.tx.mlir 2>&1 | FileCheck %s --check-prefix=HANG
// HANG: no progress after 100000 consecutive yields {{.*}} it waits for the mbarrier at workgroup byte 0 to complete its phase of parity 0 (it is in phase 0, 0 of 1 arrivals and 7232 transaction bytes still to come)

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>

memref.global "private" @smem : memref<0xf16, 3> {alignment = 16 : i64}
memref.global "private" @accSmem : memref<0xf32, 3> {alignment = 16 : i64}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %smemBytes = arith.constant 65536 : i32
  %A = memref.alloc() : memref<128x128xf16>
  %B = memref.alloc() : memref<128x128xf16>
  %D = memref.alloc() : memref<128x128xf32>
  %R = memref.alloc() : memref<128x128xf32>
  // B[i, j] = ((128 i + j) / 8) mod 16, A[j, i] = ((64 j + i) / 8) mod 16.
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %b = affine.apply affine_map<(i, j) -> (((i * 128 + j) floordiv 8) mod 16)>(%i, %j)
      %a = affine.apply affine_map<(i, j) -> (((j * 64 + i) floordiv 8) mod 16)>(%i, %j)
      %bi = arith.index_cast %b : index to i32
      %ai = arith.index_cast %a : index to i32
      %bf = arith.sitofp %bi : i32 to f16
      %af = arith.sitofp %ai : i32 to f16
      memref.store %bf, %B[%i, %j] : memref<128x128xf16>
      memref.store %af, %A[%j, %i] : memref<128x128xf16>
      memref.store %zero, %D[%i, %j] : memref<128x128xf32>
      memref.store %zero, %R[%i, %j] : memref<128x128xf32>
    }
  }
  %t0 = gpu.wait async
  %dA, %t1 = gpu.alloc async [%t0] () : memref<128x128xf16>
  %dB, %t2 = gpu.alloc async [%t1] () : memref<128x128xf16>
  %dD, %t3 = gpu.alloc async [%t2] () : memref<128x128xf32>
  %t4 = gpu.memcpy async [%t3] %dA, %A : memref<128x128xf16>, memref<128x128xf16>
  %t5 = gpu.memcpy async [%t4] %dB, %B : memref<128x128xf16>, memref<128x128xf16>
  gpu.wait [%t5]
  %uA = memref.cast %dA : memref<128x128xf16> to memref<*xf16>
  %uB = memref.cast %dB : memref<128x128xf16> to memref<*xf16>
  %mapA = nvgpu.tma.create.descriptor %uA box[%c128, %c64] : memref<*xf16> -> !mapA
  %mapB = nvgpu.tma.create.descriptor %uB box[%c64, %c64] : memref<*xf16> -> !mapB

  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %smemBytes {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k32 = arith.constant 32 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %bytes = arith.constant 32768 : index
    %tid = gpu.thread_id x
    %raw = memref.get_global @smem : memref<0xf16, 3>
    %aTiles = memref.reinterpret_cast %raw to offset: [0], sizes: [2, 128, 64], strides: [8192, 64, 1]
        : memref<0xf16, 3> to memref<2x128x64xf16, 3>
    %bAll = memref.reinterpret_cast %raw to offset: [0], sizes: [4, 64, 128], strides: [8192, 128, 1]
        : memref<0xf16, 3> to memref<4x64x128xf16, 3>
    %bTiles = memref.subview %bAll[2, 0, 0] [2, 64, 128] [1, 1, 1]
        : memref<4x64x128xf16, 3> to memref<2x64x128xf16, strided<[8192, 128, 1], offset: 16384>, 3>
    %bBoxes = memref.reinterpret_cast %raw to offset: [16384], sizes: [2, 2, 64, 64], strides: [8192, 4096, 64, 1]
        : memref<0xf16, 3> to memref<2x2x64x64xf16, strided<[8192, 4096, 64, 1], offset: 16384>, 3>
    %bar = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %bar[%k0], %k1 : !barriers
    nvgpu.mbarrier.init %bar[%k1], %k1 : !barriers
    nvgpu.tma.prefetch.descriptor %mapA : !mapA
    nvgpu.tma.prefetch.descriptor %mapB : !mapB
    %leader = arith.cmpi eq, %tid, %k0 : index
    scf.for %s = %k0 to %k2 step %k1 {
      scf.if %leader {
        %a = memref.subview %aTiles[%s, 0, 0] [1, 128, 64] [1, 1, 1]
            : memref<2x128x64xf16, 3> to memref<128x64xf16, strided<[64, 1], offset: ?>, 3>
        %b0 = memref.subview %bBoxes[%s, 0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
            : memref<2x2x64x64xf16, strided<[8192, 4096, 64, 1], offset: 16384>, 3> to memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
        %b1 = memref.subview %bBoxes[%s, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
            : memref<2x2x64x64xf16, strided<[8192, 4096, 64, 1], offset: 16384>, 3> to memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
        nvgpu.mbarrier.arrive.expect_tx %bar[%s], %bytes : !barriers
        %k = arith.muli %s, %k64 : index
        nvgpu.tma.async.load %mapA[%k, %k0], %bar[%s] to %a
            : !mapA, !barriers -> memref<128x64xf16, strided<[64, 1], offset: ?>, 3>
        nvgpu.tma.async.load %mapB[%k0, %k], %bar[%s] to %b0
            : !mapB, !barriers -> memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
        nvgpu.tma.async.load %mapB[%k64, %k], %bar[%s] to %b1
            : !mapB, !barriers -> memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
      }
    }
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %res = scf.for %s = %k0 to %k2 step %k1 iter_args(%c = %init) -> (!acc) {
      %ticks = arith.constant 10000000 : index
      %phase = arith.constant false
      nvgpu.mbarrier.try_wait.parity %bar[%s], %phase, %ticks : !barriers
      %a = memref.subview %aTiles[%s, 0, 0] [1, 128, 64] [1, 1, 1]
          : memref<2x128x64xf16, 3> to memref<128x64xf16, strided<[64, 1], offset: ?>, 3>
      %b = memref.subview %bTiles[%s, 0, 0] [1, 64, 128] [1, 1, 1]
          : memref<2x64x128xf16, strided<[8192, 128, 1], offset: 16384>, 3> to memref<64x128xf16, strided<[128, 1], offset: ?>, 3>
      %da = nvgpu.warpgroup.generate.descriptor %a, %mapA
          : memref<128x64xf16, strided<[64, 1], offset: ?>, 3>, !mapA -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
      %db = nvgpu.warpgroup.generate.descriptor %b, %mapB
          : memref<64x128xf16, strided<[128, 1], offset: ?>, 3>, !mapB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
      %d = nvgpu.warpgroup.mma %da, %db, %c {transposeB}
          : <tensor = memref<128x64xf16, 3>>, <tensor = memref<64x128xf16, 3>>, <fragmented = vector<128x128xf32>>
          -> <fragmented = vector<128x128xf32>>
      // IN-FLIGHT-WRITE
      scf.yield %d : !acc
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    %accRaw = memref.get_global @accSmem : memref<0xf32, 3>
    %accTile = memref.reinterpret_cast %accRaw to offset: [0], sizes: [128, 128], strides: [128, 1]
        : memref<0xf32, 3> to memref<128x128xf32, 3>
    nvgpu.warpgroup.mma.store %res, %accTile : <fragmented = vector<128x128xf32>> to memref<128x128xf32, 3>
    // EPILOGUE-BARRIER
    %warp = arith.divui %tid, %k32 : index
    %lane = arith.remui %tid, %k32 : index
    %col = arith.muli %lane, %k4 : index
    scf.for %row = %warp to %k128 step %k4 {
      %v = vector.load %accTile[%row, %col] : memref<128x128xf32, 3>, vector<4xf32>
      vector.store %v, %dD[%row, %col] : memref<128x128xf32>, vector<4xf32>
    }
    gpu.terminator
  }
  %t6 = gpu.memcpy async %D, %dD : memref<128x128xf32>, memref<128x128xf32>
  gpu.wait [%t6]
  linalg.matmul ins(%A, %B : memref<128x128xf16>, memref<128x128xf16>) outs(%R : memref<128x128xf32>)
  %i1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : i32
  %bad, %good = scf.for %i = %c0 to %c128 step %c1 iter_args(%e = %i0, %g = %i0) -> (i32, i32) {
    %e2, %g2 = scf.for %j = %c0 to %c128 step %c1 iter_args(%e1 = %e, %g1 = %g) -> (i32, i32) {
      %r = memref.load %R[%i, %j] : memref<128x128xf32>
      %d = memref.load %D[%i, %j] : memref<128x128xf32>
      %same = arith.cmpf oeq, %r, %d : f32
      %eb = arith.addi %e1, %i1 : i32
      %en = arith.select %same, %e1, %eb : i32
      %gb = arith.addi %g1, %i1 : i32
      %gn = arith.select %same, %gb, %g1 : i32
      scf.yield %en, %gn : i32, i32
    }
    scf.yield %e2, %g2 : i32, i32
  }
  vector.print str "Correct Results :"
  vector.print %good : i32
  vector.print str "Incorrect Results :"
  vector.print %bad : i32
  return
}
