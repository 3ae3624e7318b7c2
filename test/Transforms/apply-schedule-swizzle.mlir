// RUN: ext-opt %s --split-input-file --ext-apply-schedule --verify-diagnostics

// 30x30 tiles of A (900 elements, not a whole number of 32-element blocks):
// XORing bits 5..9 into bits 0..4 moves offsets of the last, partial block
// past the tile's end.
func.func @swizzle_escapes_the_tile(%A: memref<64x60xf32>, %B: memref<60x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @below {{cannot swizzle the shared tile of input #0: #ext.swizzle<bits = 5, base = 0, shift = 5> is not a bijection on a tile of 900 elements: offset 896 maps to 924}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 60>]
      ins(%A, %B : memref<64x60xf32>, memref<60x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [30, 32, 30], blocks = ["i", "j"], threads = [10, 8, 1],
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A reduction bound to threads (k over 8 threads) has no fragments to
// stage: caching its output is refused.
func.func @staged_thread_reduction(%A: memref<64x8xf32>, %B: memref<8x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{'ext.compute' op caches output #0, but its schedule binds the reduction to threads: only an accumulator in fragments is staged through shared memory}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 8>]
      ins(%A, %B : memref<64x8xf32>, memref<8x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 8],
        cache = [#ext.cache<operand = 2>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
