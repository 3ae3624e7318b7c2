// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=7 %s | FileCheck %s
// The gpu dialect's subgroup MMA ops on the emulator: one warp computes
// D = 2 * (0.5 + A * B) for A 16x32 and B 32x16 (f16, f32 accumulators) over
// two k-steps carried by scf.for, with B loaded transposed from its 16x32
// transpose Bt, a constant matrix, elementwise ops and a store with a leading
// dimension wider than the tile. The host counts the elements that differ
// from a scalar reference.

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c17 = arith.constant 17 : index
  %eighth = arith.constant 0.125 : f32
  %A = memref.alloc() : memref<16x32xf16>
  %Bt = memref.alloc() : memref<16x32xf16>
  %D = memref.alloc() : memref<16x24xf32>
  // A[i][k] = ((7i + 5k + 3) mod 17 - 8) / 8, Bt[j][k] = B[k][j] =
  // ((3k + 11j + 1) mod 13 - 6) / 8.
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %a0 = arith.muli %i, %c7 : index
      %a1 = arith.muli %k, %c5 : index
      %a2 = arith.addi %a0, %a1 : index
      %a3 = arith.addi %a2, %c3 : index
      %a4 = arith.remui %a3, %c17 : index
      %a5 = arith.subi %a4, %c8 : index
      %a6 = arith.index_cast %a5 : index to i32
      %a7 = arith.sitofp %a6 : i32 to f32
      %a8 = arith.mulf %a7, %eighth : f32
      %a9 = arith.truncf %a8 : f32 to f16
      memref.store %a9, %A[%i, %k] : memref<16x32xf16>
      %b0 = arith.muli %k, %c3 : index
      %b1 = arith.muli %i, %c11 : index
      %b2 = arith.addi %b0, %b1 : index
      %b3 = arith.addi %b2, %c1 : index
      %b4 = arith.remui %b3, %c13 : index
      %b5 = arith.subi %b4, %c6 : index
      %b6 = arith.index_cast %b5 : index to i32
      %b7 = arith.sitofp %b6 : i32 to f32
      %b8 = arith.mulf %b7, %eighth : f32
      %b9 = arith.truncf %b8 : f32 to f16
      memref.store %b9, %Bt[%i, %k] : memref<16x32xf16>
    }
  }

  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k16 = arith.constant 16 : index
    %k32 = arith.constant 32 : index
    %half = arith.constant 0.5 : f32
    %two = arith.constant 2.0 : f32
    %init = gpu.subgroup_mma_constant_matrix %half : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %kk = %k0 to %k32 step %k16 iter_args(%c = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %a = gpu.subgroup_mma_load_matrix %A[%k0, %kk] {leadDimension = 32 : index} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %b = gpu.subgroup_mma_load_matrix %Bt[%k0, %kk] {leadDimension = 32 : index, transpose} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %twos = gpu.subgroup_mma_constant_matrix %two : !gpu.mma_matrix<16x16xf32, "COp">
    %scaled = gpu.subgroup_mma_elementwise mulf %acc, %twos : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %scaled, %D[%k0, %k0] {leadDimension = 24 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x24xf32>
    gpu.terminator
  }

  %bad = memref.alloc() : memref<1xi32>
  %czero = arith.constant 0 : i32
  %cone = arith.constant 1 : i32
  %tol = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %count = scf.for %i = %c0 to %c16 step %c1 iter_args(%n0 = %czero) -> (i32) {
    %row = scf.for %j = %c0 to %c16 step %c1 iter_args(%n1 = %n0) -> (i32) {
      %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %half) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<16x32xf16>
        %b = memref.load %Bt[%j, %k] : memref<16x32xf16>
        %a32 = arith.extf %a : f16 to f32
        %b32 = arith.extf %b : f16 to f32
        %p = arith.mulf %a32, %b32 : f32
        %next = arith.addf %acc, %p : f32
        scf.yield %next : f32
      }
      %want = arith.mulf %sum, %two : f32
      %got = memref.load %D[%i, %j] : memref<16x24xf32>
      %diff = arith.subf %got, %want : f32
      %err = math.absf %diff : f32
      %mag = math.absf %want : f32
      %mag1 = arith.addf %mag, %one : f32
      %bound = arith.mulf %tol, %mag1 : f32
      %wrong = arith.cmpf ugt, %err, %bound : f32
      %inc = arith.select %wrong, %cone, %czero : i32
      %n2 = arith.addi %n1, %inc : i32
      scf.yield %n2 : i32
    }
    scf.yield %row : i32
  }
  memref.store %count, %bad[%c0] : memref<1xi32>
  %u = memref.cast %bad : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// Mismatched elements of D:
// CHECK: [0]
