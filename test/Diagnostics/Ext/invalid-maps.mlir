// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Indexing maps that do not fit the domain or the operands.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @map_count(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{expects one indexing map per operand (2), got 1}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @map_dims(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has 2 dimensions, expected one per axis (1)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, j) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @map_rank(%X: memref<4x4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has 1 results but the operand 'memref<4x4xf32>' has rank 2}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4x4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @map_symbols(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has symbols; accesses are affine in the axes only, or bound to a table by `indirect`}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s] -> (i + s)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @output_uses_reduce_axis(%X: memref<4x8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{indexing map of output #0 uses reduce axis 'k'; a reduce axis must not index an output}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @output_misses_spatial_axis(%X: memref<4x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of output #0 does not use spatial axis 'j'; every spatial axis must index every output}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<4x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @output_compound_access(%X: memref<4xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{indexing map of output #0 result #0 is 'd0 * 2'; output accesses must be single axes}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i * 2)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @output_axis_twice(%X: memref<4xf32>, %Y: memref<4x4xf32>) {
  // expected-error @+1 {{indexing map of output #0 uses axis 'i' twice}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4x4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i, i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @extent_mismatch(%A: memref<64x16xf32>, %B: memref<16x32xf32>, %C: memref<64x32xf32>) {
  // expected-error @+1 {{input #1 dimension #0 has size 16 but axis 'k' that indexes it has extent 17}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 17>]
      ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>) outs(%C : memref<64x32xf32>)
      maps [affine_map<(i, j, k) -> (i, 0)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @output_extent_mismatch(%X: memref<4xf32>, %Y: memref<5xf32>) {
  // expected-error @+1 {{output #0 dimension #0 has size 5 but axis 'i' that indexes it has extent 4}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<5xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @access_out_of_bounds(%I: memref<9x9xf32>, %O: memref<8x8xf32>) {
  // expected-error @+1 {{access 'd0 + d2' of input #0 dimension #0 ranges over [0, 9], outside [0, 9)}}
  ext.compute [#ext.axis<"oh", spatial, 8>, #ext.axis<"ow", spatial, 8>,
               #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>]
      ins(%I : memref<9x9xf32>) outs(%O : memref<8x8xf32>)
      maps [affine_map<(oh, ow, kh, kw) -> (oh + kh, ow + kw)>,
            affine_map<(oh, ow, kh, kw) -> (oh, ow)>]
      combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @negative_access(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{access 'd0 - 1' of input #0 dimension #0 ranges over [-1, 6], outside [0, 8)}}
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
