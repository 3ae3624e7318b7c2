// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Malformed iteration domains and operand lists.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @empty_domain(%Y: memref<f32>) {
  // expected-error @+1 {{'ext.compute' op has an empty iteration domain: it needs at least one axis}}
  ext.compute [] outs(%Y : memref<f32>) maps [affine_map<() -> ()>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @duplicate_axis(%X: memref<4x4xf32>, %Y: memref<4x4xf32>) {
  // expected-error @+1 {{names axis 'i' twice (axes #0 and #1)}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"i", spatial, 4>]
      ins(%X : memref<4x4xf32>) outs(%Y : memref<4x4xf32>)
      maps [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @zero_extent(%Y: memref<4xf32>) {
  // expected-error @+1 {{axis 'i' has extent 0; extents must be positive}}
  ext.compute [#ext.axis<"i", spatial, 0>] outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @unknown_axis_kind(%Y: memref<4xf32>) {
  // expected-error @+2 {{expected ::ext::AxisKind to be one of: spatial, reduce}}
  // expected-error @+1 {{failed to parse Ext_AxisAttr parameter 'kind'}}
  ext.compute [#ext.axis<"i", parallel, 4>] outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @no_outputs(%X: memref<4xf32>) {
  // expected-error @+1 {{needs at least one output}}
  "ext.compute"(%X) <{axes = [#ext.axis<"i", spatial, 4>], indexing_maps = [affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%x: f32):
    "ext.yield"() : () -> ()
  }, {}) : (memref<4xf32>) -> ()
  return
}

// -----

func.func @non_memref_operand(%X: tensor<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{operand #0 must be variadic of memref of any type values}}
  "ext.compute"(%X, %Y) <{axes = [#ext.axis<"i", spatial, 4>], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    "ext.yield"(%x) : (f32) -> ()
  }, {}) : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @axes_not_axis_attrs(%Y: memref<4xf32>) {
  // expected-error @+1 {{attribute 'axes' failed to satisfy constraint: array of ext.axis}}
  "ext.compute"(%Y) <{axes = [4 : i64], indexing_maps = [affine_map<(i) -> (i)>], operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0:
    %c = arith.constant 0.0 : f32
    "ext.yield"(%c) : (f32) -> ()
  }, {}) : (memref<4xf32>) -> ()
  return
}
