// Two phases: A and B share offset 0, and the barrier already between A's
// last read and B's first write orders them, so none is added (the kernel
// keeps its two barriers).
func.func @sequential_phases(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<256xf32, #gpu.address_space<workgroup>>, %B : memref<128xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %A[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %A[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %B[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
