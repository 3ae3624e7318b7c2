// ldmatrix reads shared memory like any load: racecheck reports the rows it
// reads when the barrier after they were written is missing, and accepts the
// kernel with the barrier.
// RUN: not ext-run --racecheck --entry=no_barrier %s 2>&1 >/dev/null | FileCheck %s
// RUN: ext-run --racecheck --entry=with_barrier %s

// Warp 1 writes the 8x8 tile, warp 0 reads it with ldmatrix.
func.func @no_barrier(%out: memref<64x2xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %tile = memref.alloc() : memref<8x8xf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f16
    %warp1 = arith.cmpi uge, %tx, %c32 : index
    scf.if %warp1 {
      %i = arith.subi %tx, %c32 : index
      %r = arith.divui %i, %c8 : index
      %c = arith.remui %i, %c8 : index
      %ok = arith.cmpi ult, %r, %c8 : index
      scf.if %ok {
        memref.store %one, %tile[%r, %c] : memref<8x8xf16, #gpu.address_space<workgroup>>
      }
    }
    %row = arith.remui %tx, %c8 : index
    %m = nvgpu.ldmatrix %tile[%row, %c0] {numTiles = 1 : i32, transpose = false} : memref<8x8xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
    %x = vector.extract %m[0, 0] : f16 from vector<1x2xf16>
    memref.store %x, %out[%tx, %c0] : memref<64x2xf16>
    gpu.terminator
  }
  return
}

func.func @with_barrier(%out: memref<64x2xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %tile = memref.alloc() : memref<8x8xf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f16
    %warp1 = arith.cmpi uge, %tx, %c32 : index
    scf.if %warp1 {
      %i = arith.subi %tx, %c32 : index
      %r = arith.divui %i, %c8 : index
      %c = arith.remui %i, %c8 : index
      %ok = arith.cmpi ult, %r, %c8 : index
      scf.if %ok {
        memref.store %one, %tile[%r, %c] : memref<8x8xf16, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    %row = arith.remui %tx, %c8 : index
    %m = nvgpu.ldmatrix %tile[%row, %c0] {numTiles = 1 : i32, transpose = false} : memref<8x8xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
    %x = vector.extract %m[0, 0] : f16 from vector<1x2xf16>
    memref.store %x, %out[%tx, %c0] : memref<64x2xf16>
    gpu.terminator
  }
  return
}

// The ldmatrix (line 29) reads rows warp 1 writes (line 25) without a barrier.
// CHECK: racecheck: 2 data races
// CHECK-DAG: ext-emu: race: write-after-read on shared memory, {{.*}}: read by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}ldmatrix-race.mlir:29:10, then write by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}ldmatrix-race.mlir:25:9
// CHECK-DAG: ext-emu: race: read-after-write on shared memory, {{.*}}: write by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}ldmatrix-race.mlir:25:9, then read by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}ldmatrix-race.mlir:29:10
