// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null
// Issue 59: tiles too large for any GPU are refused by a check, before
// anything allocates or enumerates them: the schedule's verifier bounds a
// tile's points (no size computed from them can overflow), the private
// buffers of a thread are an error beyond its local memory, and a shared
// tile beyond any chip's shared memory is left alone by
// ext-gpu-reuse-shared-memory (whose coverage analysis set a bit per byte,
// past the end of its bit vector: an assertion) and refused by the limit.

// A tile of 2^40 rows: 2^50 points.
func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-error @below {{'ext.compute' op schedule: tile [1099511627776, 64, 16] covers 1125899906842624 points; a tile may cover at most 2^48 (no GPU holds that many elements): use a smaller tile}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [1099511627776, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A product past 2^63.
func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-error @below {{tile [4611686018427387904, 4611686018427387904, 16] covers more than 2^63 points}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [4611686018427387904, 4611686018427387904, 16], blocks = ["i", "j"], threads = [16, 16, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// 2^20 rows on 16 x 16 threads: 1 MB of accumulator per thread. It was a
// warning about registers, then a segfault on the emulator.
func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-error @below {{the kernel in @gemm keeps 1048576 bytes (1024.0 KB) of private buffers per thread; sm_90 gives a thread at most 524288 bytes (512.0 KB) of local memory: use a smaller per-thread tile}}
  // expected-note @below {{private buffer 'memref<65536x4xf32, #gpu.address_space<private>>': 1048576 bytes (1024.0 KB)}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [1048576, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// 2^20 rows with cached inputs: a 64 MB shared tile of A.
func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  // expected-remark @below {{ext-gpu-reuse-shared-memory: leaving 'memref<16777216xf32, #gpu.address_space<workgroup>>' alone: 67108864 bytes (65536.0 KB) is more shared memory than any chip has}}
  // expected-error @below {{the kernel in @gemm uses 67112960 bytes (65540.0 KB) of shared memory per block; sm_90 allows at most 232448 bytes (227.0 KB) per block}}
  // expected-note @below {{shared buffer 'memref<16777216xf32, #gpu.address_space<workgroup>>': 67108864 bytes (65536.0 KB)}}
  // expected-note @below {{shared buffer 'memref<1024xf32, #gpu.address_space<workgroup>>': 4096 bytes (4.0 KB)}}
  // expected-warning @below {{the kernel in @gemm keeps 262144 bytes (256.0 KB) of private buffers per thread, at least 65536 32-bit registers}}
  // expected-note @below {{private buffer 'memref<16384x4xf32, #gpu.address_space<private>>': 262144 bytes (256.0 KB)}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [1048576, 64, 16], blocks = ["i", "j"], threads = [64, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
