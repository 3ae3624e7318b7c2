// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=9 %s | FileCheck %s
// RUN: ext-run --emu-schedule=round-robin %s | FileCheck %s
// The cluster barrier (barrier.cluster, split into nvvm.cluster.arrive and
// nvvm.cluster.wait) orders every thread of every block of the cluster:
// each thread of two 2x1x1 clusters of 64-thread blocks writes its slot of
// its block's shared buffer, and block rank 0 writes global memory; a
// thread works on between its arrive and its wait; after the wait each
// reads another thread's slot, and block rank 1 what rank 0 wrote:
// out[b][t] = 1000 (b + 1) + 63 - t (+ 63 - t in rank 1), which sum to
// CHECK: checksum 652096{{$}}
//
// Racecheck sees the barrier as one: without it, the reads race with the
// writes, in shared memory and in global memory across the blocks.
// RUN: sed -e 's|^ *nvvm.cluster.arrive$||' -e 's|^ *nvvm.cluster.wait$||' %s > %t.none.mlir
// RUN: not ext-run --racecheck %t.none.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// A relaxed arrival orders nothing:
// RUN: sed -e 's|^ *nvvm.cluster.arrive$|nvvm.cluster.arrive.relaxed|' %s > %t.relaxed.mlir
// RUN: not ext-run --racecheck %t.relaxed.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// RACE-DAG: read-after-write on shared memory
// RACE-DAG: read-after-write on global memory, {{.*}} write by thread ({{[0-9]+}}, 0, 0) of block ({{0|2}}, 0, 0){{.*}}, then read by thread ({{[0-9]+}}, 0, 0) of block ({{1|3}}, 0, 0)
//
// A wait with no arrive before it is an error:
// RUN: sed -e 's|^ *nvvm.cluster.arrive$||' %s > %t.noarrive.mlir
// RUN: not ext-run %t.noarrive.mlir 2>&1 | FileCheck %s --check-prefix=NOARRIVE
// NOARRIVE: barrier.cluster.wait at {{.*}} without a barrier.cluster.arrive before it (since its last wait): it would wait for a phase it is not part of

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %global = memref.alloc() : memref<2x64xi32>
  %out = memref.alloc() : memref<4x64xi32>
  %side = memref.alloc() : memref<4x64xi32>
  gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k63 = arith.constant 63 : index
    %k1000 = arith.constant 1000 : index
    %buf = memref.alloca() : memref<64xi32, #gpu.address_space<workgroup>>
    %rank = gpu.cluster_block_id x
    %cluster = gpu.cluster_id x
    %b1 = arith.addi %bx, %k1 : index
    %base = arith.muli %b1, %k1000 : index
    %mine = arith.addi %base, %tx : index
    %mine32 = arith.index_cast %mine : index to i32
    memref.store %mine32, %buf[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %rank, %k0 : index
    scf.if %first {
      %t32 = arith.index_cast %tx : index to i32
      memref.store %t32, %global[%cluster, %tx] : memref<2x64xi32>
    }
    nvvm.cluster.arrive
    // Work between the arrive and the wait: nothing else reads it.
    %tx32 = arith.index_cast %tx : index to i32
    memref.store %tx32, %side[%bx, %tx] : memref<4x64xi32>
    nvvm.cluster.wait
    %other = arith.subi %k63, %tx : index
    %theirs = memref.load %buf[%other] : memref<64xi32, #gpu.address_space<workgroup>>
    %v = scf.if %first -> (i32) {
      scf.yield %theirs : i32
    } else {
      %g = memref.load %global[%cluster, %other] : memref<2x64xi32>
      %sum = arith.addi %theirs, %g : i32
      scf.yield %sum : i32
    }
    memref.store %v, %out[%bx, %tx] : memref<4x64xi32>
    gpu.terminator
  }
  %zero = arith.constant 0 : i32
  %sum = scf.for %b = %c0 to %c4 step %c1 iter_args(%s0 = %zero) -> (i32) {
    %s2 = scf.for %t = %c0 to %c64 step %c1 iter_args(%s1 = %s0) -> (i32) {
      %v = memref.load %out[%b, %t] : memref<4x64xi32>
      %n = arith.addi %s1, %v : i32
      scf.yield %n : i32
    }
    scf.yield %s2 : i32
  }
  vector.print str "checksum "
  vector.print %sum : i32
  return
}
