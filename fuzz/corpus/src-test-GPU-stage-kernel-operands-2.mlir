// Device memory and scalars are passed as they are.
module attributes {gpu.container_module} {
  func.func @device(%a: memref<8xf32, #gpu.address_space<workgroup>>, %f: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32, #gpu.address_space<workgroup>>, %f : f32)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<8xf32, #gpu.address_space<workgroup>>, %f: f32) kernel {
      gpu.return
    }
  }
}
