// A finding of the regenerated corpus (the seed from
// test/Transforms/alloc-shared-to-workgroup.mlir): ext-gpu-to-cpu-emulation
// on a kernel still holding an ext.alloc_shared stripped its workgroup
// memory space and left IR that does not verify. It is an error now.
// RUN: ext-opt %s --ext-gpu-to-cpu-emulation --verify-diagnostics

gpu.module @kernels {
  gpu.func @kernel() kernel {
    // expected-error @+1 {{'ext.alloc_shared' op must be lowered before the CPU emulation}}
    %s = ext.alloc_shared : memref<4x16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
