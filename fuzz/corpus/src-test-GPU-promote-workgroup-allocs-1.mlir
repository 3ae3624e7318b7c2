// A padded (strided) tile: a flat attribution spanning offset + sum((n-1)*s)
// + 1 = 15 * 17 + 15 + 1 = 271 elements, viewed with the original layout.
// An alloca and one inside a loop are promoted too.
gpu.module @m {
  gpu.func @padded(%v: f32, %i: i8) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloca() : memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    memref.store %v, %a[%c0, %c0] : memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %c4 step %c1 {
      %b = memref.alloc() : memref<8xi8, #gpu.address_space<workgroup>>
      memref.store %i, %b[%k] : memref<8xi8, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}
