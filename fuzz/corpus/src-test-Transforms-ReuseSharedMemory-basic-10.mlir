// Mixed element types: an i8 buffer then an f64 one in a later phase; the
// f64 buffer's offset is a multiple of 8.
func.func @mixed_alignment(%out: memref<4xf64>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<3xi8, #gpu.address_space<workgroup>>, %B : memref<4xf64, #gpu.address_space<workgroup>>, %C : memref<2xf32, #gpu.address_space<workgroup>>) {
    %i = arith.constant 7 : i8
    %d = arith.constant 1.0 : f64
    %f = arith.constant 1.0 : f32
    memref.store %i, %A[%tx] : memref<3xi8, #gpu.address_space<workgroup>>
    memref.store %f, %C[%tx] : memref<2xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<3xi8, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %d, %B[%tx] : memref<4xf64, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<4xf64, #gpu.address_space<workgroup>>
    %c = memref.load %C[%tx] : memref<2xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<4xf64>
    gpu.terminator
  }
  return
}
