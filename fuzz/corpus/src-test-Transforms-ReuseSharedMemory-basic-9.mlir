// Aliases: A is used only through a subview, a cast and a view; its live
// range is theirs.
func.func @aliases(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %sub = memref.subview %A[0] [32] [1] : memref<64xf32, #gpu.address_space<workgroup>> to memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    %cast = memref.cast %sub : memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>> to memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %f, %cast[%tx] : memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    %a = memref.load %cast[%tx] : memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
