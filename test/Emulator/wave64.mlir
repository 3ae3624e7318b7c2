// RUN: ext-run --chip=gfx942 %s | FileCheck %s --check-prefix=WAVE64
// RUN: ext-run --chip=gfx942 --racecheck --emu-seed=4 %s | FileCheck %s --check-prefix=WAVE64
// RUN: ext-run %s | FileCheck %s --check-prefix=WARP32
// RDNA runs 32-lane waves (the chip model's warp width, not "every gfx").
// RUN: ext-run --chip=gfx1100 %s | FileCheck %s --check-prefix=WARP32
// RUN: ext-run --chip=gfx1030 %s | FileCheck %s --check-prefix=WARP32
// RUN: ext-run --chip=gfx90a %s | FileCheck %s --check-prefix=WAVE64
// RUN: env EXT_EMU_WARP_SIZE=64 ext-run %s | FileCheck %s --check-prefix=WAVE64
// RUN: env EXT_EMU_WARP_SIZE=48 not ext-run %s 2>&1 | FileCheck %s --check-prefix=BAD
// A CDNA chip's kernels run on 64-lane waves: lane ids, subgroup ids and
// sizes, shuffles and subgroup reductions see them. A block of 128 threads
// stores, per thread: lane id, subgroup id, subgroup size, number of
// subgroups, the sum of the lane ids of its subgroup, and the value of the
// lane 32 above it (shuffle xor 32 over the whole subgroup).

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %out = memref.alloc() : memref<6x128xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r0 = arith.constant 0 : index
    %r1 = arith.constant 1 : index
    %r2 = arith.constant 2 : index
    %r3 = arith.constant 3 : index
    %r4 = arith.constant 4 : index
    %r5 = arith.constant 5 : index
    %lane = gpu.lane_id
    %sg = gpu.subgroup_id : index
    %size = gpu.subgroup_size : index
    %n = gpu.num_subgroups : index
    %lane32 = arith.index_cast %lane : index to i32
    %sum = gpu.subgroup_reduce add %lane32 : (i32) -> i32
    %size32 = arith.index_cast %size : index to i32
    %off = arith.constant 32 : i32
    %x, %ok = gpu.shuffle xor %lane32, %off, %size32 : i32
    %v1 = arith.index_cast %sg : index to i32
    %v3 = arith.index_cast %n : index to i32
    memref.store %lane32, %out[%r0, %tx] : memref<6x128xi32>
    memref.store %v1, %out[%r1, %tx] : memref<6x128xi32>
    memref.store %size32, %out[%r2, %tx] : memref<6x128xi32>
    memref.store %v3, %out[%r3, %tx] : memref<6x128xi32>
    memref.store %sum, %out[%r4, %tx] : memref<6x128xi32>
    memref.store %x, %out[%r5, %tx] : memref<6x128xi32>
    gpu.terminator
  }
  // Print columns 0, 31, 32, 63, 64, 127 of each row.
  %cols = memref.alloc() : memref<6x6xi32>
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %picks = arith.constant dense<[0, 31, 32, 63, 64, 127]> : vector<6xindex>
  scf.for %r = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      %col = vector.extract %picks[%j] : index from vector<6xindex>
      %v = memref.load %out[%r, %col] : memref<6x128xi32>
      memref.store %v, %cols[%r, %j] : memref<6x6xi32>
    }
  }
  %u = memref.cast %cols : memref<6x6xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// Threads 0, 31, 32, 63, 64, 127:
// WAVE64: [0,   31,   32,   63,   0,   63]
// WAVE64-NEXT: [0,   0,   0,   0,   1,   1]
// WAVE64-NEXT: [64,   64,   64,   64,   64,   64]
// WAVE64-NEXT: [2,   2,   2,   2,   2,   2]
// WAVE64-NEXT: [2016,   2016,   2016,   2016,   2016,   2016]
// WAVE64-NEXT: [32,   63,   0,   31,   32,   31]

// WARP32: [0,   31,   0,   31,   0,   31]
// WARP32-NEXT: [0,   0,   1,   1,   2,   3]
// WARP32-NEXT: [32,   32,   32,   32,   32,   32]
// WARP32-NEXT: [4,   4,   4,   4,   4,   4]
// WARP32-NEXT: [496,   496,   496,   496,   496,   496]
// WARP32-NEXT: [0,   31,   0,   31,   0,   31]

// BAD: ext-emu: error: EXT_EMU_WARP_SIZE='48' is not 32 or 64
