// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null
// RUN: not ext-opt %s --split-input-file --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>&1 >/dev/null | FileCheck %s --check-prefix=AMD
// ext-gpu-pipeline checks each kernel against the chip's limits before
// outlining, so a schedule too big for the chip is reported at the
// ext.compute that carries it, not by ptxas.

// 128x60 and 60x128 f32 tiles of A and B: 61,440 bytes, more than the 48 KB
// a kernel may declare statically, so they become dynamic shared memory
// (within sm_90's 227 KB per block); AMD's 64 KB of LDS holds them.
// AMD-NOT: error: {{.*}} @big_tiles
func.func @big_tiles(%A: memref<256x240xf32>, %B: memref<240x256xf32>, %C: memref<256x256xf32>) {
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 256>,
               #ext.axis<"k", reduce, 240>]
      ins(%A, %B : memref<256x240xf32>, memref<240x256xf32>) outs(%C : memref<256x256xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 128, 60], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// 256 KB of tiles: beyond every chip's per-block limit.
// AMD: error: the kernel in @huge_tiles uses 262144 bytes (256.0 KB) of shared memory per block; gfx942 allows at most 65536 bytes (64.0 KB) of LDS per block
func.func @huge_tiles(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  // expected-error @below {{the kernel in @huge_tiles uses 262144 bytes (256.0 KB) of shared memory per block; sm_90 allows at most 232448 bytes (227.0 KB) per block}}
  // expected-note @below {{shared buffer 'memref<262144xi8, #gpu.address_space<workgroup>>': 262144 bytes (256.0 KB)}}
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 256>,
               #ext.axis<"k", reduce, 256>]
      ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>) outs(%C : memref<256x256xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [256, 256, 128], blocks = ["i", "j"], threads = [32, 32, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A 100x99 output tile on one thread: a 39,600-byte accumulator per thread
// that no register file holds. It compiles (from local memory), with a
// warning.
// AMD: warning: the kernel in @spilling_tile keeps 39600 bytes (38.7 KB) of private buffers per thread, at least 9900 32-bit registers; gfx942 has 512 per thread, so they spill to scratch memory
func.func @spilling_tile(%A: memref<200x64xf32>, %B: memref<64x198xf32>, %C: memref<200x198xf32>) {
  // expected-warning @below {{the kernel in @spilling_tile keeps 39600 bytes (38.7 KB) of private buffers per thread, at least 9900 32-bit registers; sm_90 has 255 per thread, so they spill to local memory (a stack frame)}}
  // expected-note @below {{private buffer 'memref<100x99xf32, #gpu.address_space<private>>': 39600 bytes (38.7 KB)}}
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 198>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<200x64xf32>, memref<64x198xf32>) outs(%C : memref<200x198xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [100, 99, 16], blocks = ["i", "j"], threads = [1, 1, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
