// The shared-memory matmul kernel on a real NVIDIA GPU: C = A B with
// A[i][k] = i + k and B[k][j] = 1, so every C[i][j] = sum_k (i + k)
// = 32 i + 496; the printed row sums are 64 (32 i + 496).

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %A = memref.alloc() : memref<64x32xf32>
  %B = memref.alloc() : memref<32x64xf32>
  %C = memref.alloc() : memref<64x64xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%one : f32) outs(%B : memref<32x64xf32>)
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %s = arith.addi %i, %k : index
      %si = arith.index_cast %s : index to i32
      %f = arith.sitofp %si : i32 to f32
      memref.store %f, %A[%i, %k] : memref<64x32xf32>
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %As = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %Bs = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %row0 = arith.muli %by, %c16 : index
    %col0 = arith.muli %bx, %c16 : index
    %row = arith.addi %row0, %ty : index
    %col = arith.addi %col0, %tx : index
    %acc = scf.for %k0 = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (f32) {
      %ka = arith.addi %k0, %tx : index
      %va = memref.load %A[%row, %ka] : memref<64x32xf32>
      memref.store %va, %As[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      %kb = arith.addi %k0, %ty : index
      %vb = memref.load %B[%kb, %col] : memref<32x64xf32>
      memref.store %vb, %Bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %s = scf.for %k = %c0 to %c16 step %c1 iter_args(%s0 = %a) -> (f32) {
        %x = memref.load %As[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %y = memref.load %Bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %p = arith.mulf %x, %y : f32
        %s1 = arith.addf %s0, %p : f32
        scf.yield %s1 : f32
      }
      gpu.barrier
      scf.yield %s : f32
    }
    memref.store %acc, %C[%row, %col] : memref<64x64xf32>
    gpu.terminator
  }
  // Row sums of C for rows 0, 1 and 63.
  %sums = memref.alloc() : memref<3xf32>
  %c63 = arith.constant 63 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %r = %c0 to %c3 step %c1 {
    %is1 = arith.cmpi eq, %r, %c1 : index
    %is2 = arith.cmpi eq, %r, %c2 : index
    %r1 = arith.select %is1, %c1, %c0 : index
    %row = arith.select %is2, %c63, %r1 : index
    %sum = scf.for %j = %c0 to %c64 step %c1 iter_args(%s = %zero) -> (f32) {
      %v = memref.load %C[%row, %j] : memref<64x64xf32>
      %n = arith.addf %s, %v : f32
      scf.yield %n : f32
    }
    memref.store %sum, %sums[%r] : memref<3xf32>
  }
  %u = memref.cast %sums : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
// 64 * 496 = 31744, 64 * 528 = 33792, 64 * (32 * 63 + 496) = 160768
