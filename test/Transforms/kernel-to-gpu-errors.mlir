// RUN: ext-opt %s --split-input-file --ext-kernel-to-gpu --verify-diagnostics

func.func @stream_k_without_sms() {
  // expected-error @+1 {{decomposition #ext.stream_k_dp needs the SM count: give it `sms = N`, or the chip to ext-apply-schedule or ext-kernel-to-gpu}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k_dp
      combiner(sum) {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  }
  return
}
