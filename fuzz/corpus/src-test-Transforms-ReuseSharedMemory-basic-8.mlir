// Fragmentation: X and Y live together, then Z (twice their size) with Y.
// Program-order first fit puts X at 0 and Y at 64, so Z cannot start at 0
// and goes to 128 (256 bytes); largest-first puts Z at 0, Y at 128 and X at
// 0, the clique bound of 192 bytes.
func.func @fragmentation(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%X : memref<16xf32, #gpu.address_space<workgroup>>, %Y : memref<16xf32, #gpu.address_space<workgroup>>,
                       %Z : memref<32xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %X[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %f, %Y[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %x = memref.load %X[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %x, %Z[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %y = memref.load %Y[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %z = memref.load %Z[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tx] : memref<32xf32>
    memref.store %z, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
