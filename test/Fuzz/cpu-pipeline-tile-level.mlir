// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-cpu-pipeline=reference=true
// RUN: ext-opt %s --split-input-file --ext-cpu-pipeline | FileCheck %s
// Fuzzer finding: ext-cpu-pipeline on tile-level IR let convert-scf-to-cf
// split the single-block body of an ext.kernel, and the result did not
// verify. In reference mode (no schedule lowering) the pipeline rejects
// tile-level ops at the op; by default it lowers them to emulated kernels.
// CHECK-LABEL: llvm.func @kernel_with_loop
// CHECK: llvm.call @__ext_emu_launch
// CHECK-LABEL: llvm.func @tile_op_in_launch

func.func @kernel_with_loop(%A: memref<16xf32>) {
  // expected-error @+1 {{'ext.kernel' op is tile-level IR, which has no CPU lowering}}
  ext.kernel tiles [1] iters 2 threads 32 decomposition #ext.data_parallel {
  ^bb0(%ti: index, %kb: index, %ke: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %kb to %ke step %c1 {
      %v = memref.load %A[%c0] : memref<16xf32>
      memref.store %v, %A[%k] : memref<16xf32>
    }
    ext.kernel_yield
  } epilogue {
  ^bb0(%ti: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @tile_op_in_launch() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-error @+1 {{'ext.alloc_fragment' op is tile-level IR, which has no CPU lowering}}
    %f = ext.alloc_fragment threads [1] : memref<4xf32>
    gpu.terminator
  }
  return
}
