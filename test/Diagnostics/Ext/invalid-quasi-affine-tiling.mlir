// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule -o /dev/null
// Accesses through floordiv or mod that a schedule's tiles do not cut into
// whole multiples of the divisor, nor into pieces of one (issue 54 item 2).

// A k tile of 48 against groups of 128: a tile would straddle two groups at
// offsets that change with the tile.
func.func @group_not_divided(%A: memref<4x256xf16>, %S: memref<64x2xf16>, %C: memref<4x64xf32>) {
  // expected-error @+1 {{tile 48 of axis 'k' is not a multiple of 128, the divisor in access 'd2 floordiv 128' of input #1, nor does each tile lie inside one multiple of it}}
  ext.compute [#ext.axis<"m", spatial, 4>, #ext.axis<"n", spatial, 64>, #ext.axis<"k", reduce, 256>]
      ins(%A, %S : memref<4x256xf16>, memref<64x2xf16>) outs(%C : memref<4x64xf32>)
      maps [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k floordiv 128)>,
            affine_map<(m, n, k) -> (m, n)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [4, 32, 48], blocks = ["n"], threads = [4, 32, 1]>} {
  ^bb0(%a: f16, %s: f16):
    %p = arith.mulf %a, %s : f16
    %p32 = arith.extf %p : f16 to f32
    ext.yield %p32 : f32
  }
  return
}

// -----

// Two nibbles per byte: a k tile of 3 starts every other tile inside a byte.
func.func @odd_tile_of_packed(%A: memref<4x64xf32>, %Wq: memref<64x32xi8>, %C: memref<4x64xf32>) {
  // expected-error @+1 {{tile 3 of axis 'k' is not a multiple of 2, the divisor in access 'd2 floordiv 2' of input #1, nor does each tile lie inside one multiple of it}}
  ext.compute [#ext.axis<"m", spatial, 4>, #ext.axis<"n", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %Wq : memref<4x64xf32>, memref<64x32xi8>) outs(%C : memref<4x64xf32>)
      maps [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k floordiv 2)>,
            affine_map<(m, n, k) -> (m, n)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [4, 32, 3], blocks = ["n"], threads = [4, 32, 1]>} {
  ^bb0(%a: f32, %w: i8):
    %wf = arith.uitofp %w : i8 to f32
    %p = arith.mulf %a, %wf : f32
    ext.yield %p : f32
  }
  return
}

// -----

// The tile times the axis's coefficient is what must divide.
func.func @scaled_axis(%X: memref<48xf32>, %Y: memref<30xf32>) {
  // expected-error @+1 {{tile 3 of axis 'i' (times its coefficient 3) is not a multiple of 2, the divisor in access '(d0 * 3) floordiv 2' of input #0, nor does each tile lie inside one multiple of it}}
  ext.compute [#ext.axis<"i", spatial, 30>]
      ins(%X : memref<48xf32>) outs(%Y : memref<30xf32>)
      maps [affine_map<(i) -> ((i * 3) floordiv 2)>, affine_map<(i) -> (i)>]
      attributes {schedule = #ext.schedule<tile = [3], blocks = ["i"], threads = [3]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// A division of a remainder tiles where the tiles cover whole periods of the
// remainder (a packed word's codes: ext.quant's fragment layout); a tile of
// 2 splits the period of 4.
func.func @nested(%X: memref<2xf32>, %Y: memref<32xf32>) {
  // expected-error @+1 {{access '(d0 mod 4) floordiv 2' of input #0: its tiles must cover whole periods of 4 (a tile of the axes it moves with a multiple of 4)}}
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%X : memref<2xf32>) outs(%Y : memref<32xf32>)
      maps [affine_map<(i) -> ((i mod 4) floordiv 2)>, affine_map<(i) -> (i)>]
      attributes {schedule = #ext.schedule<tile = [2], blocks = ["i"], threads = [2]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// A remainder of a division is no linear form under one divisor.
func.func @nested_other_way(%X: memref<2xf32>, %Y: memref<32xf32>) {
  // expected-error @+1 {{access '(d0 floordiv 4) mod 2' of input #0 is not linear in the axes; ext-apply-schedule tiles linear accesses and their floordiv or mod by a constant}}
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%X : memref<2xf32>) outs(%Y : memref<32xf32>)
      maps [affine_map<(i) -> ((i floordiv 4) mod 2)>, affine_map<(i) -> (i)>]
      attributes {schedule = #ext.schedule<tile = [8], blocks = ["i"], threads = [8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// compute_at places a producer's region by linear forms of the tile offsets.
func.func @compute_at_through_floordiv(%X: memref<16x32xf32>, %Y: memref<16x64xf32>) {
  %P = memref.alloc() : memref<16x32xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 32>]
      ins(%X : memref<16x32xf32>) outs(%P : memref<16x32xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] attributes {name = "P"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'P' at 'i': 'Y' reads through 'd1 floordiv 2'; a producer computed at a tile is read, and reads, through linear accesses}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%P : memref<16x32xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j floordiv 2)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"P", "i">]>} {
  ^bb0(%p: f32):
    ext.yield %p : f32
  }
  return
}
