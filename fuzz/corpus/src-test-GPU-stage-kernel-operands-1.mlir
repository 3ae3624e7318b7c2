// Non-contiguous operands cannot be copied as one block.
module attributes {gpu.container_module} {
  func.func @strided(%a: memref<4x4xf32, strided<[8, 1]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel operand #0 of type 'memref<4x4xf32, strided<[8, 1]>>' has a non-identity layout; only contiguous memrefs can be staged to the device}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4x4xf32, strided<[8, 1]>>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<4x4xf32, strided<[8, 1]>>) kernel {
      gpu.return
    }
  }
}
