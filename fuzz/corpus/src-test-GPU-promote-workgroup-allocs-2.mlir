gpu.module @m {
  gpu.func @dynamic(%n: index) kernel {
    // expected-error @+1 {{dynamically sized workgroup allocation 'memref<?xf32, #gpu.address_space<workgroup>>' cannot be given static shared memory}}
    %a = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
