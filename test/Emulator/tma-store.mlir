// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: ext-run --emu-seed=7 %s | FileCheck %s
// RUN: env EXT_EMU_THREADS=1 ext-run --emu-schedule=sequential %s | FileCheck %s
// RUN: env EXT_EMU_THREADS=2 ext-run --emu-schedule=round-robin %s | FileCheck %s
// A wait_group without .read (its writes done too) is stronger: the same.
// RUN: sed 's|wait_group 0 {read}|wait_group 0|' %s > %t.full.mlir
// RUN: ext-run --racecheck %t.full.mlir | FileCheck %s
// RUN: ext-run --emu-seed=5 %t.full.mlir | FileCheck %s
// With the 128-byte swizzle, the stage written where a TMA load of the map
// would put each element (16-byte chunk c of row i at chunk c ^ (i % 8)):
// RUN: sed -e 's|swizzle = none|swizzle = swizzle_128b|' -e 's|%%swizzled = arith.constant 0 : index|%%swizzled = arith.constant 1 : index|' %s > %t.sw128.mlir
// RUN: ext-run --racecheck %t.sw128.mlir | FileCheck %s
// RUN: ext-run --emu-seed=9 %t.sw128.mlir | FileCheck %s
// ... and a swizzled map over an unswizzled stage stores the wrong elements:
// RUN: sed -e 's|swizzle = none|swizzle = swizzle_128b|' %s > %t.wrong.mlir
// RUN: ext-run %t.wrong.mlir | FileCheck %s --check-prefix=WRONG
// WRONG: wrong elements: {{[1-9][0-9]*}}{{$}}
//
// Hopper's TMA-store epilogue: each block stages 64x32 f32 tiles of a
// 100x72 tensor (a window, row stride 96, of a 128x96 buffer) in shared
// memory with ordinary stores, fences them for the async proxy
// (fence.proxy.async.shared::cta), passes a barrier, and one thread stores
// the tile with nvgpu.tma.async.store (its predicate), commits and waits
// for the copy's reads (wait_group.read 0) before a barrier lets the block
// rewrite the stage for its next tile. Blocks are columns of tiles (3, the
// last 8 columns wide) and loop over 2 row tiles (the second 36 rows high):
// the copy engine must clip each box at the tensor's edge, so the buffer
// outside the window keeps its -1. Block 0 skips its second store (a false
// predicate): those rows stay -1 too.
// CHECK: wrong elements: 0{{$}}
// CHECK: corner: 99071{{$}}
// CHECK-NOT: racecheck

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!stage = memref<64x32xf32, #gpu.address_space<workgroup>>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c72 = arith.constant 72 : index
  %c96 = arith.constant 96 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  %none = arith.constant -1.0 : f32
  %big = memref.alloc() : memref<128x96xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c96 step %c1 {
      memref.store %none, %big[%i, %j] : memref<128x96xf32>
    }
  }
  %T = memref.subview %big[0, 0] [100, 72] [1, 1]
      : memref<128x96xf32> to memref<100x72xf32, strided<[96, 1]>>
  %u = memref.cast %T : memref<100x72xf32, strided<[96, 1]>> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c32] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k32 = arith.constant 32 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %k1000 = arith.constant 1000 : index
    %k2048 = arith.constant 2048 : index
    %k7 = arith.constant 7 : index
    %k4 = arith.constant 4 : index
    // 1: the stage is swizzled (128 bytes; it is the block's first
    // workgroup buffer, at window offset 0, as the swizzle's 1024-byte
    // pattern needs).
    %swizzled = arith.constant 0 : index
    %stage = memref.alloca() : !stage
    %leader = arith.cmpi eq, %tx, %k0 : index
    %col0 = arith.muli %bx, %k32 : index
    scf.for %r = %k0 to %k2 step %k1 {
      %row0 = arith.muli %r, %k64 : index
      // Every element of the box, inside the tensor or not: (row, col) ->
      // 1000 row + col.
      scf.for %e = %tx to %k2048 step %k128 {
        %i = arith.divui %e, %k32 : index
        %j = arith.remui %e, %k32 : index
        %gi = arith.addi %row0, %i : index
        %gj = arith.addi %col0, %j : index
        %hi = arith.muli %gi, %k1000 : index
        %x = arith.addi %hi, %gj : index
        %xi = arith.index_cast %x : index to i32
        %v = arith.sitofp %xi : i32 to f32
        %i7 = arith.andi %i, %k7 : index
        %x4 = arith.muli %i7, %k4 : index
        %flip = arith.muli %x4, %swizzled : index
        %sj = arith.xori %j, %flip : index
        memref.store %v, %stage[%i, %sj] : !stage
      }
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      // Block 0's second tile is not stored.
      %b0 = arith.cmpi eq, %bx, %k0 : index
      %r1 = arith.cmpi eq, %r, %k1 : index
      %skip = arith.andi %b0, %r1 : i1
      %true = arith.constant true
      %keep = arith.xori %skip, %true : i1
      %issue = arith.andi %leader, %keep : i1
      nvgpu.tma.async.store %stage to %map[%col0, %row0], predicate = %issue
          : !stage -> !map
      scf.if %leader {
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      gpu.barrier
    }
    gpu.terminator
  }
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %true = arith.constant true
  %c71 = arith.constant 71 : index
  %c99 = arith.constant 99 : index
  %c1000 = arith.constant 1000 : index
  %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%b0 = %zero) -> (i32) {
    %b2 = scf.for %j = %c0 to %c96 step %c1 iter_args(%acc = %b0) -> (i32) {
      %ri = arith.cmpi ult, %i, %c100 : index
      %rj = arith.cmpi ult, %j, %c72 : index
      %in = arith.andi %ri, %rj : i1
      // Block 0's second tile: rows 64.., columns ..31.
      %leftCol = arith.cmpi ult, %j, %c32 : index
      %highRow = arith.cmpi uge, %i, %c64 : index
      %skipped = arith.andi %highRow, %leftCol : i1
      %notSkipped = arith.xori %skipped, %true : i1
      %stored = arith.andi %in, %notSkipped : i1
      %hi = arith.muli %i, %c1000 : index
      %x = arith.addi %hi, %j : index
      %xi = arith.index_cast %x : index to i32
      %xf = arith.sitofp %xi : i32 to f32
      %want = arith.select %stored, %xf, %none : f32
      %got = memref.load %big[%i, %j] : memref<128x96xf32>
      %ok = arith.cmpf oeq, %want, %got : f32
      %next = arith.addi %acc, %one : i32
      %sel = arith.select %ok, %acc, %next : i32
      scf.yield %sel : i32
    }
    scf.yield %b2 : i32
  }
  vector.print str "wrong elements: "
  vector.print %bad : i32
  %corner = memref.load %big[%c99, %c71] : memref<128x96xf32>
  %ci = arith.fptosi %corner : f32 to i32
  vector.print str "corner: "
  vector.print %ci : i32
  return
}
