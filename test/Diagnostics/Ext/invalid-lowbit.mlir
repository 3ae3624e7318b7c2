// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Low-bit element types and accesses used wrongly (issue 54).

func.func @unsigned_elements(%W: memref<4xui8>, %Y: memref<4xi32>) {
  // expected-error @+1 {{input #0 has element type 'ui8'; elements are signless integers (i8), whose operations carry the signedness (arith.shrui, arith.extui, arith.uitofp)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%W : memref<4xui8>) outs(%Y : memref<4xi32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%w: ui8):
    %c = arith.constant 0 : i32
    ext.yield %c : i32
  }
  return
}

// -----

func.func @signed_output(%W: memref<4xi8>, %Y: memref<4xsi8>) {
  // expected-error @+1 {{output #0 has element type 'si8'; elements are signless integers (i8)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%W : memref<4xi8>) outs(%Y : memref<4xsi8>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%w: i8):
    ext.yield %w : i8
  }
  return
}

// -----

// A packed access divides by a positive constant.
func.func @floordiv_by_negative(%W: memref<4x2xi8>, %Y: memref<4x4xi8>) {
  // expected-error @+1 {{indexing map of input #0 divides by '-2' in 'd1 floordiv -2'; mod and divisions need a positive constant divisor}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 4>]
      ins(%W : memref<4x2xi8>) outs(%Y : memref<4x4xi8>)
      maps [affine_map<(i, j) -> (i, j floordiv -2)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%w: i8):
    ext.yield %w : i8
  }
  return
}

// -----

// A divisor must be a constant: the affine parser refuses an axis.
func.func @floordiv_by_axis(%W: memref<4x2xi8>, %Y: memref<4x4xi8>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 4>]
      ins(%W : memref<4x2xi8>) outs(%Y : memref<4x4xi8>)
      // expected-error @+1 {{non-affine expression: right operand of floordiv has to be either a constant or symbolic}}
      maps [affine_map<(i, j) -> (i, j floordiv i)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%w: i8):
    ext.yield %w : i8
  }
  return
}

// -----

// Two int4 per byte need K / 2 bytes: K bytes' worth of accesses leave it.
func.func @packed_too_small(%W: memref<4x2xi8>, %Y: memref<4x8xi8>) {
  // expected-error @+1 {{access 'd1 floordiv 2' of input #0 dimension #1 ranges over [0, 3], outside [0, 2)}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%W : memref<4x2xi8>) outs(%Y : memref<4x8xi8>)
      maps [affine_map<(i, j) -> (i, j floordiv 2)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%w: i8):
    ext.yield %w : i8
  }
  return
}
