// Double buffering: two stages used in every iteration interfere.
func.func @double_buffered(%in: memref<1024xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%S0 : memref<64xf32, #gpu.address_space<workgroup>>, %S1 : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = memref.load %in[%tx] : memref<1024xf32>
    memref.store %f, %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %f) -> (f32) {
      memref.store %acc, %S1[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %S1[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %x, %y : f32
      memref.store %s, %S0[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.yield %s : f32
    }
    memref.store %r, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
