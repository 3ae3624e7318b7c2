// Fuzzer finding: ext-cpu-pipeline on tile-level IR let convert-scf-to-cf
// split the single-block body of an ext.kernel, and the result did not
// verify. In reference mode (no schedule lowering) the pipeline rejects
// tile-level ops at the op; by default it lowers them to emulated kernels.

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
