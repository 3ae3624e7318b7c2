// RUN: ext-opt %s --split-input-file --verify-diagnostics

// Indirect reads (#ext.indirect): every symbol bound once, to an integer
// table read through a map of the axes alone; outputs never indirect.

func.func @no_binding(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has symbols; accesses are affine in the axes only, or bound to a table by `indirect`}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @unbound_symbol(%X: memref<8x8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indexing map of input #0 has symbol #1, which no #ext.indirect binds to a table input}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8x8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0, s1] -> (s0, s1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @bound_twice(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #1 binds symbol #0 of input #0's map a second time}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>,
                #ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @no_such_symbol(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #0 binds symbol #1 of input #0's map, which has 1 symbols}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 1, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @no_such_input(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #0 names input #2, but the compute has 2 inputs}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 2>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @own_table(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #0 reads input #0 at its own element}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 0>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @float_table(%X: memref<8xf32>, %T: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #0 takes its index from input #1 of element type 'f32'; a table holds integers (signless, or index)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xf32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// No chains: the table of a table's read is refused.
func.func @chained(%X: memref<8xf32>, %T: memref<4xi32>, %U: memref<4xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{indirect read #0 takes its index from input #1, which is read indirectly itself; a table is read through a map of the axes alone}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T, %U : memref<8xf32>, memref<4xi32>, memref<4xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i)>,
            affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>,
                #ext.indirect<input = 1, symbol = 0, table = 2>] {
  ^bb0(%x: f32, %t: i32, %u: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @indirect_output(%X: memref<8xf32>, %T: memref<4xi32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{indexing map of output #0 has symbols; outputs are never written indirectly}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<4xi32>)
      outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i)[s0] -> (s0)>]
      indirect [#ext.indirect<input = 1, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

// The table's own access is checked as any other, and so are the dimensions
// of the indirect access that do not read the entry.
func.func @table_outside(%X: memref<8xf32>, %T: memref<2xi32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{access 'd0 floordiv 2 + 1' of input #1 dimension #0 ranges over [1, 2], outside [0, 2)}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X, %T : memref<8xf32>, memref<2xi32>)
      outs(%Y : memref<4xf32>)
      maps [affine_map<(i)[s0] -> (s0)>, affine_map<(i) -> (i floordiv 2 + 1)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @row_outside(%X: memref<8x4xf32>, %T: memref<4xi32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{access 'd0 mod 5' of input #0 dimension #1 ranges over [0, 4], outside [0, 4)}}
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X, %T : memref<8x4xf32>, memref<4xi32>)
      outs(%Y : memref<8xf32>)
      maps [affine_map<(i)[s0] -> (s0, i mod 5)>, affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: i32):
    ext.yield %x : f32
  }
  return
}
