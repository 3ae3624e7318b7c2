// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=3 %s | FileCheck %s
// gpu.subgroup_mma_compute with a_transpose and b_transpose (what upstream's
// wmma-matmul-f16 test runs): A and B are stored transposed (At[k][i] =
// A[i][k], Bt[j][k] = B[k][j]), loaded with `transpose` and multiplied with
// the flags that say so, D = A B + C on one warp, f16 operands and an f32
// accumulator; the host recomputes D with loops and prints the number of
// mismatching elements.

func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %At = memref.alloc() : memref<16x16xf16>
  %Bt = memref.alloc() : memref<16x16xf16>
  %C = memref.alloc() : memref<16x16xf32>
  %D = memref.alloc() : memref<16x16xf32>
  // Small integers: f16 holds them and every sum exactly.
  scf.for %r = %c0 to %c16 step %c1 {
    scf.for %c = %c0 to %c16 step %c1 {
      %r32 = arith.index_cast %r : index to i32
      %cc = arith.index_cast %c : index to i32
      %five = arith.constant 5 : i32
      %seven = arith.constant 7 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %x = arith.muli %r32, %two : i32
      %y = arith.addi %x, %cc : i32
      %a = arith.remui %y, %five : i32
      %ai = arith.subi %a, %two : i32
      %af = arith.sitofp %ai : i32 to f16
      memref.store %af, %At[%r, %c] : memref<16x16xf16>
      %z = arith.muli %cc, %three : i32
      %w = arith.addi %z, %r32 : i32
      %b = arith.remui %w, %seven : i32
      %bi = arith.subi %b, %three : i32
      %bf = arith.sitofp %bi : i32 to f16
      memref.store %bf, %Bt[%r, %c] : memref<16x16xf16>
      %cf = arith.sitofp %r32 : i32 to f32
      memref.store %cf, %C[%r, %c] : memref<16x16xf32>
    }
  }

  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %At[%k0, %k0] {leadDimension = 16 : index, transpose} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %Bt[%k0, %k0] {leadDimension = 16 : index, transpose} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %c = gpu.subgroup_mma_load_matrix %C[%k0, %k0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %c {a_transpose, b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %d, %D[%k0, %k0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }

  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%n0 = %zero) -> (i32) {
    %n1 = scf.for %j = %c0 to %c16 step %c1 iter_args(%n = %n0) -> (i32) {
      %init = memref.load %C[%i, %j] : memref<16x16xf32>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %init) -> (f32) {
        %a = memref.load %At[%k, %i] : memref<16x16xf16>
        %b = memref.load %Bt[%j, %k] : memref<16x16xf16>
        %a32 = arith.extf %a : f16 to f32
        %b32 = arith.extf %b : f16 to f32
        %p = arith.mulf %a32, %b32 : f32
        %t = arith.addf %s, %p : f32
        scf.yield %t : f32
      }
      %got = memref.load %D[%i, %j] : memref<16x16xf32>
      %ne = arith.cmpf une, %got, %sum : f32
      %inc = arith.select %ne, %one, %zero : i32
      %m = arith.addi %n, %inc : i32
      scf.yield %m : i32
    }
    scf.yield %n1 : i32
  }
  // CHECK: [0]
  %out = memref.alloc() : memref<1xi32>
  memref.store %bad, %out[%c0] : memref<1xi32>
  %u = memref.cast %out : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
