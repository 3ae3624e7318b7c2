// Each distinct host memref gets a device buffer: allocated and filled on
// one stream before the launch, copied back (only when the kernel writes it)
// and freed on another after it. %a is passed twice: one buffer.
module attributes {gpu.container_module} {
  func.func @host(%a: memref<8xf32>, %b: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>, %b : memref<?xf32>, %a : memref<8xf32>)
    return
  }
  gpu.module @k {
    // %x is read, %y only read (through a subview), %z (= %a) written.
    gpu.func @k(%x: memref<8xf32>, %y: memref<?xf32>, %z: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = memref.load %x[%c0] : memref<8xf32>
      %s = memref.subview %y[0] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1]>>
      %w = memref.load %s[%c0] : memref<1xf32, strided<[1]>>
      %r = arith.addf %v, %w : f32
      memref.store %r, %z[%c1] : memref<8xf32>
      gpu.return
    }
  }
}
