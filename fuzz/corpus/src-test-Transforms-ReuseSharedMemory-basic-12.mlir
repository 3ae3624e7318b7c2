// A kernel with one buffer is left exactly as it was.
func.func @single_buffer(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
