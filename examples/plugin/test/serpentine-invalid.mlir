// A bad serpentine attribute is a located diagnostic of the installed
// ext-opt, from the plugin's verifier; so is a dynamic extent under it (the
// plugin does not implement the interface's launch-time planning), on a
// tile count or on the k-steps of a reduce axis.
// RUN: ext-opt %s --load-dialect-plugin=%plugin --split-input-file --verify-diagnostics -o /dev/null

func.func @bad_run(%X: memref<8xf32>) {
  // expected-error @+4 {{serpentine run must be at least 1, got 0}}
  ext.compute [#ext.axis<"i", spatial, 8>] outs(%X : memref<8xf32>)
      maps [affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<
        tile = [4], blocks = ["i"], threads = [4],
        decomposition = #ext_example.serpentine<run = 0>>} {
  ^bb0:
    %c = arith.constant 1.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @dynamic_extent(%X: memref<?xf32>) {
  // expected-error @+1 {{schedule: axis 'i' has a dynamic extent; decomposition #ext_example.serpentine<run = 2> plans its grid only from static extents}}
  ext.compute [#ext.axis<"i", spatial, ?>] outs(%X : memref<?xf32>)
      maps [affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<
        tile = [4], blocks = ["i"], threads = [4],
        decomposition = #ext_example.serpentine<run = 2>>} {
  ^bb0:
    %c = arith.constant 1.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @dynamic_kernel(%m: index) {
  // expected-error @+1 {{'ext.kernel' op has tile counts known at run time, but decomposition #ext_example.serpentine<run = 2> plans its grid only from static counts}}
  ext.kernel tiles [%m] iters 1 threads 32 decomposition #ext_example.serpentine<run = 2> {
  ^bb0(%i: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @dynamic_reduce_extent(%A: memref<8x?xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{schedule: axis 'k' has a dynamic extent; decomposition #ext_example.serpentine<run = 2> plans its grid only from static extents}}
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, ?>]
      ins(%A : memref<8x?xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [4, 4], blocks = ["i"], threads = [4, 1],
        decomposition = #ext_example.serpentine<run = 2>>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @dynamic_iters_kernel(%k: index) {
  // expected-error @+1 {{'ext.kernel' op has an iteration count known at run time, but decomposition #ext_example.serpentine<run = 2> plans its grid only from static counts}}
  ext.kernel tiles [2] iters %k threads 32 decomposition #ext_example.serpentine<run = 2> {
  ^bb0(%i: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index):
    ext.kernel_yield
  }
  return
}
