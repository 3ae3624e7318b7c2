// Nested lifetimes: B lives inside A's lifetime, so they interfere.
func.func @nested_lifetimes(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<128xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %a, %out[%tx] : memref<128xf32>
    gpu.terminator
  }
  return
}
