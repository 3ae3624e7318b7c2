// Kernels without such ops pass on every chip, and host code is not checked
// for NVVM ops.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @plain(%buf: memref<4xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<4xf32>
      memref.store %v, %buf[%t] : memref<4xf32>
      gpu.barrier
      gpu.return
    }
  }
}
