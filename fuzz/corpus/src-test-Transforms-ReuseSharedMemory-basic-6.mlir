// Both branches of an scf.if whose condition is uniform (from the block id):
// the whole block takes one side, so the branches' buffers share.
func.func @uniform_branches(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %bx, %c0 : index
    scf.if %first {
      memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%tx] : memref<64xf32>
    } else {
      memref.store %f, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %b, %out[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}
