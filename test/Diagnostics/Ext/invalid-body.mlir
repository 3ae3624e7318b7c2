// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Bodies, ext.yield and ext.index used wrongly.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @body_arity(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{body has 2 arguments, expected one per input (1)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32, %z: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @body_arg_type(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{body argument #0 has type 'f64' but input #0 has element type 'f32'}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f64):
    %t = arith.truncf %x : f64 to f32
    ext.yield %t : f32
  }
  return
}

// -----

func.func @body_yield_count(%X: memref<4xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    // expected-error @+1 {{'ext.yield' op yields 2 values but the body of its ext.compute must yield 1, one per output}}
    ext.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @body_yield_type(%X: memref<4xf32>, %Y: memref<4xf16>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf16>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    // expected-error @+1 {{'ext.yield' op value #0 has type 'f32' but output #0 has element type 'f16'}}
    ext.yield %x : f32
  }
  return
}

// -----

func.func @body_memory_effect(%X: memref<4xf32>, %Y: memref<4xf32>, %Z: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.load' op has memory effects, which are not allowed in the regions of an ext.compute}}
    %z = memref.load %Z[%c0] : memref<4xf32>
    ext.yield %z : f32
  }
  return
}

// -----

func.func @index_unknown_axis(%Y: memref<4xindex>) {
  ext.compute [#ext.axis<"i", spatial, 4>] outs(%Y : memref<4xindex>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    // expected-error @+1 {{'ext.index' op names axis 'j', which the enclosing ext.compute does not have (its axes: i)}}
    %j = ext.index "j" : index
    ext.yield %j : index
  }
  return
}

// -----

func.func @index_outside_compute() -> index {
  // expected-error @+1 {{'ext.index' op must be inside the body of an ext.compute}}
  %i = ext.index "i" : index
  return %i : index
}

// -----

func.func @index_in_reducer(%X: memref<4x8xindex>, %Y: memref<4xindex>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xindex>) outs(%Y : memref<4xindex>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0 : index] {
  ^bb0(%x: index):
    ext.yield %x : index
  } reducer {
  ^bb0(%a: index, %b: index):
    // expected-error @+1 {{'ext.index' op is only valid in the body of an ext.compute, not in its reducer}}
    %k = ext.index "k" : index
    ext.yield %k : index
  }
  return
}

// -----

func.func @yield_outside_compute() {
  // expected-error @+1 {{'ext.yield' op expects parent op to be one of 'ext.compute, ext.tile_compute, ext.kernel'}}
  ext.yield
}
