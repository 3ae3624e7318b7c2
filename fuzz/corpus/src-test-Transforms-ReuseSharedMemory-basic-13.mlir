// Workgroup memref.allocs in an outlined gpu.func are packed too, and their
// deallocs go away.
gpu.module @kernels {
  gpu.func @outlined(%out: memref<64xf32>) kernel {
    %tx = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    %A = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.dealloc %A : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %B = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.return
  }
}
