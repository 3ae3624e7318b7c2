// RUN: ext-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{split_k slices must be in [1, 2147483647] (the grid's x limit), got 0}}
func.func @f() attributes {d = #ext.split_k<slices = 0>} { return }

// -----

// expected-error @+1 {{stream_k grid must be a CTA count in [1, 2147483647] (the grid's x limit), or 0 for the SM count, got -2}}
func.func @f() attributes {d = #ext.stream_k<grid = -2>} { return }

// -----

// expected-error @+1 {{persistent grid must be a CTA count in [1, 2147483647] (the grid's x limit), or 0 for the SM count, got -1}}
func.func @f() attributes {d = #ext.persistent<grid = -1>} { return }

// -----

// expected-error @+1 {{persistent sms must be a positive SM count (or 0 for the chip's), got -3}}
func.func @f() attributes {d = #ext.persistent<sms = -3>} { return }

// -----

// expected-error @+1 {{stream_k_dp sms must be a positive SM count (or 0 for the chip's), got -1}}
func.func @f() attributes {d = #ext.stream_k_dp<sms = -1>} { return }

// -----

// expected-error @+1 {{stream_k_2tile sms must be a positive SM count}}
func.func @f() attributes {d = #ext.stream_k_2tile<sms = -5>} { return }

// -----

// expected-error @+1 {{auto sms must be a positive SM count}}
func.func @f() attributes {d = #ext.auto<sms = -5>} { return }

// -----

// expected-error @+2 {{expected one of [serial, parallel] for how split-K combines the slices of a tile, got: sideways}}
// expected-error @+1 {{failed to parse Ext_SplitKAttr parameter 'mode'}}
func.func @f() attributes {d = #ext.split_k<slices = 2, mode = sideways>} { return }

// -----

func.func @more_slices_than_iterations() {
  // expected-error @+1 {{decomposition #ext.split_k<slices = 4> cannot split 3 iterations into 4 slices (each slice needs at least one)}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.split_k<slices = 4>
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

// -----

func.func @split_without_combiner() {
  // expected-error @+1 {{splits its reduction with #ext.stream_k<grid = 3> but has no combiner for the partial tiles}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k<grid = 3> {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  }
  return
}

// -----

func.func @custom_without_reducer() {
  // expected-error @+1 {{with a custom combiner needs one identity per fragment (1) and a reducer}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  }
  return
}


// -----

// A reducer over whole fragments (split-KV's combine of online-softmax
// states) takes no identity: an empty work unit leaves it.
func.func @fragment_reducer_with_identity() {
  // expected-error @+1 {{takes no identity with a reducer over whole fragments: a work unit with no iterations leaves it}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  } reducer {
  ^bb0(%a: memref<8xf32>, %b: memref<8xf32>):
    ext.yield
  }
  return
}

// -----

func.func @fragment_reducer_wrong_partial() {
  // expected-error @+1 {{reducer over whole fragments takes each fragment's type twice (accumulated, then partial); #0 is 'memref<8xf32>'}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
      combiner(custom) {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  } reducer {
  ^bb0(%a: memref<8xf32>, %b: memref<4xf32>):
    ext.yield
  }
  return
}

// -----

func.func @fragment_reducer_yields() {
  // expected-error @+1 {{reducer over whole fragments must end in an empty ext.yield (it combines in place)}}
  ext.kernel tiles [2] iters 3 threads 8 decomposition #ext.stream_k<grid = 3>
      combiner(custom) {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    ext.kernel_yield
  } reducer {
  ^bb0(%a: memref<8xf32>, %b: memref<8xf32>):
    ext.yield %a : memref<8xf32>
  }
  return
}

// -----

// expected-error @+1 {{#ext.data_parallel takes no parameters}}
func.func @f() attributes {d = #ext.data_parallel<1>} { return }

// -----

// expected-error @+1 {{#ext.data_parallel takes no parameters}}
func.func @f() attributes {d = #ext.data_parallel<>} { return }

// -----

// expected-error @+1 {{#ext.cyclic takes no parameters}}
func.func @f() attributes {d = #ext.cyclic<1>} { return }

// -----

// expected-error @+1 {{split_k slices must be in [1, 2147483647] (the grid's x limit), got 4294967297}}
func.func @f() attributes {d = #ext.split_k<slices = 4294967297>} { return }

// -----

// expected-error @+1 {{stream_k grid must be a CTA count in [1, 2147483647] (the grid's x limit), or 0 for the SM count, got 99999999999}}
func.func @f() attributes {d = #ext.stream_k<grid = 99999999999>} { return }

// -----

// Without a chip or `sms`, the persistent grid has no CTA count.
func.func @no_sms(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @below {{decomposition #ext.persistent needs the SM count: give `grid = N`, `sms = N` or the chip}}
  ext.kernel tiles [4] iters 1 threads 64 decomposition #ext.persistent {
  ^bb0(%t: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%t: index):
    ext.kernel_yield
  }
  return
}
