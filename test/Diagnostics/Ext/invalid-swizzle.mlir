// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Swizzles that are not a bijection on their tile, or that come with
// padding as well: one concern per split.

// A shift of 0 clears the bits it should permute.
// expected-error @below {{swizzle with shift 0 is not a bijection (offsets differing only in bit 0 collide)}}
func.func @shift_zero() attributes {s = #ext.swizzle<bits = 3, base = 0, shift = 0>} {
  return
}

// -----

// expected-error @below {{swizzle bits, base and shift must be non-negative}}
func.func @negative() attributes {s = #ext.swizzle<bits = -1, base = 0, shift = 5>} {
  return
}

// -----

// 30 rows of 30 floats (900 elements): offset 896 is in row-block 28 of 32
// elements, whose column bits are XORed with 28, past the tile's end.
func.func @not_a_bijection_on_the_tile() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'ext.alloc_shared' op #ext.swizzle<bits = 5, base = 0, shift = 5> is not a bijection on a tile of 900 elements: offset 896 maps to 924}}
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<30x30xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @padded_and_swizzled() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{takes either storage_align (padding) or swizzle, not both}}
    %t = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>],
                           swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @cache_padded_and_swizzled(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 32], blocks = ["i", "j"], threads = [8, 8, 1],
        // expected-error @below {{a cached operand takes either align (padding) or swizzle, not both}}
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>], swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @cache_bad_key() attributes {
  // expected-error @below {{expected 'align' or 'swizzle', got 'pad'}}
  c = #ext.cache<operand = 0, pad = 1>} {
  return
}
