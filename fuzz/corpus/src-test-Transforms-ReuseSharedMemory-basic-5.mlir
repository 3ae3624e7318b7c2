// A buffer used in a loop and one used after it: they share, with a barrier
// after the loop (the last iteration's readers of A are done).
func.func @used_after_loop(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%tx] : memref<64xf32>
    }
    memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
