module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%n: index) kernel {
      // expected-error @below {{'memref.alloc' op of workgroup memory needs a static shape and the identity layout on the CPU emulation}}
      %a = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
