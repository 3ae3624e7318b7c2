gpu.module @m {
  gpu.func @dynamic_strides(%s: index) kernel {
    // expected-error @+1 {{has a layout without static strides and offset}}
    %a = memref.alloc()[%s] : memref<4x4xf32, strided<[?, 1]>, #gpu.address_space<workgroup>>
    gpu.return
  }
}
