// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Combiners, identities and custom reducers that do not match the outputs.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @reduce_without_combiner(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{has reduce axis 'k' but no combiner}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @combiner_without_reduce(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{has a combiner but no reduce axis to combine over}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @custom_without_identity(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{with combiner(custom) needs an identity, one value per output}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(custom) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @identity_count(%X: memref<4x8xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  // expected-error @+1 {{has 1 identity values but 2 outputs}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    %c = arith.constant 0 : i32
    ext.yield %x, %c : f32, i32
  } reducer {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    ext.yield %a, %ai : f32, i32
  }
  return
}

// -----

func.func @identity_type(%X: memref<4x8xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  // expected-error @+1 {{identity #1 has type 'i64' but output #1 has element type 'i32'}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32, -1 : i64] {
  ^bb0(%x: f32):
    %c = arith.constant 0 : i32
    ext.yield %x, %c : f32, i32
  } reducer {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    ext.yield %a, %ai : f32, i32
  }
  return
}

// -----

func.func @custom_without_reducer(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{with combiner(custom) needs a reducer region}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @reducer_arity(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{reducer has 1 arguments, expected 2: the accumulated values, then the new ones}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @reducer_arg_type(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{reducer argument #1 has type 'f16', expected 'f32' (output #0)}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32, %b: f16):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @reducer_yield_type(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 1 : i32
    // expected-error @+1 {{'ext.yield' op value #0 has type 'i32' but output #0 has element type 'f32'}}
    ext.yield %c : i32
  }
  return
}

// -----

func.func @identity_with_builtin(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{takes an identity only with combiner(custom); the built-in combiners have their own}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) identity [0.0 : f32] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @reducer_with_builtin(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{takes a reducer region only with combiner(custom)}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  } reducer {
  ^bb0(%a: f32, %b: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @builtin_on_vectors(%X: memref<4x8xvector<4xf32>>, %Y: memref<4xvector<4xf32>>) {
  // expected-error @+1 {{combiner 'sum' needs integer or floating-point outputs, output #0 has element type 'vector<4xf32>'}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xvector<4xf32>>) outs(%Y : memref<4xvector<4xf32>>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: vector<4xf32>):
    ext.yield %x : vector<4xf32>
  }
  return
}

// -----

func.func @reducer_two_blocks(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{reducer must have exactly one block}}
  "ext.compute"(%X, %Y) <{axes = [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>], combiner = 4 : i32, identity = [0.0 : f32], indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    "ext.yield"(%x) : (f32) -> ()
  }, {
  ^bb0(%a: f32, %b: f32):
    cf.br ^bb1
  ^bb1:
    "ext.yield"(%a) : (f32) -> ()
  }) : (memref<4x8xf32>, memref<4xf32>) -> ()
  return
}
