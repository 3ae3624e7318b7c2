// C[64x64] = A[64x32] B[32x64]: 4x4 blocks of 16x16 threads, A and B tiles
// staged in workgroup memory between barriers. Plain upstream gpu IR.
func.func @matmul(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %t = arith.constant 16 : index
    %As = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %Bs = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %row0 = arith.muli %by, %t : index
    %col0 = arith.muli %bx, %t : index
    %row = arith.addi %row0, %ty : index
    %col = arith.addi %col0, %tx : index
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %k0 = %c0 to %c32 step %t iter_args(%a = %zero) -> (f32) {
      %ka = arith.addi %k0, %tx : index
      %va = memref.load %A[%row, %ka] : memref<64x32xf32>
      memref.store %va, %As[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      %kb = arith.addi %k0, %ty : index
      %vb = memref.load %B[%kb, %col] : memref<32x64xf32>
      memref.store %vb, %Bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c1i = arith.constant 1 : index
      %s = scf.for %k = %c0 to %t step %c1i iter_args(%s0 = %a) -> (f32) {
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
  return
}
