// A chain: A-B and B-C overlap, A and C do not. A and C share; the total is
// max(A + B, B + C) = 192 + 64 = 256 bytes, not A + B + C.
func.func @chain(%out: memref<48xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<32xf32, #gpu.address_space<workgroup>>, %B : memref<16xf32, #gpu.address_space<workgroup>>, %C : memref<48xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %f, %B[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %b, %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    %c = memref.load %C[%tx] : memref<48xf32, #gpu.address_space<workgroup>>
    memref.store %c, %out[%tx] : memref<48xf32>
    gpu.terminator
  }
  return
}
