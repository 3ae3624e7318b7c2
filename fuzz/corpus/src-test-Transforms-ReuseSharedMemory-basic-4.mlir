// A buffer used in a loop is live across the whole loop: B, used only in
// the loop's second half, still interferes with A (its data may come from
// the previous iteration's first half).
func.func @loop_carried(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %b, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}
