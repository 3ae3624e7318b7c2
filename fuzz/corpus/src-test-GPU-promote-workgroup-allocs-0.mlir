// An identity-layout workgroup alloc becomes an attribution of the same type;
// its dealloc goes, private and global allocs stay.
gpu.module @m {
  gpu.func @identity(%v: f32) kernel {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %p = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    memref.store %v, %a[%c0, %c0] : memref<16x16xf32, #gpu.address_space<workgroup>>
    memref.store %v, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    memref.dealloc %a : memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
