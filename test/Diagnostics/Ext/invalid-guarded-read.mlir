// RUN: ext-opt %s --split-input-file --verify-diagnostics -o /dev/null
// A read in a branch is checked under the branch's condition: refused, with
// a point where it leaves its operand, when the condition does not keep it
// inside.

// -----

// i >= 0 does not keep i - 1 inside.
func.func @weak_guard(%X: memref<10xf32>, %Y: memref<10xf32>) {
  // expected-error @+1 {{'ext.compute' op access 'd0 - 1' of input #0 dimension #0 leaves [0, 10) under the branch that reads it, at i = 0; guard the read so that it stays inside}}
  ext.compute [#ext.axis<"i", spatial, 10>] ins(%X : memref<10xf32>) outs(%Y : memref<10xf32>)
      maps [affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>] {
  ^bb0(%l: f32):
    %i = ext.index "i" : index
    %c0 = arith.constant 0 : index
    %in = arith.cmpi sge, %i, %c0 : index
    %v = scf.if %in -> f32 {
      scf.yield %l : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    ext.yield %v : f32
  }
  return
}

// -----

// The read sits in the branch where the guard fails.
func.func @wrong_branch(%X: memref<10xf32>, %Y: memref<10xf32>) {
  // expected-error @+1 {{'ext.compute' op access 'd0 + 1' of input #0 dimension #0 leaves [0, 10) under the branch that reads it, at i = 9; guard the read so that it stays inside}}
  ext.compute [#ext.axis<"i", spatial, 10>] ins(%X : memref<10xf32>) outs(%Y : memref<10xf32>)
      maps [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>] {
  ^bb0(%r: f32):
    %i = ext.index "i" : index
    %c9 = arith.constant 9 : index
    %in = arith.cmpi slt, %i, %c9 : index
    %v = scf.if %in -> f32 {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    } else {
      scf.yield %r : f32
    }
    ext.yield %v : f32
  }
  return
}

// -----

// A condition on data says nothing about the index.
func.func @data_guard(%X: memref<10xf32>, %Y: memref<10xf32>) {
  // expected-error @+1 {{'ext.compute' op access 'd0 - 1' of input #0 dimension #0 leaves [0, 10) under the branch that reads it, at i = 0; guard the read so that it stays inside}}
  ext.compute [#ext.axis<"i", spatial, 10>] ins(%X, %X : memref<10xf32>, memref<10xf32>) outs(%Y : memref<10xf32>)
      maps [affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%l: f32, %c: f32):
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %c, %z : f32
    %v = scf.if %pos -> f32 {
      scf.yield %l : f32
    } else {
      scf.yield %z : f32
    }
    ext.yield %v : f32
  }
  return
}

// -----

// Used outside the branch as well: read unguarded, and checked so.
func.func @also_outside(%X: memref<10xf32>, %Y: memref<10xf32>) {
  // expected-error @+1 {{'ext.compute' op access 'd0 - 1' of input #0 dimension #0 ranges over [-1, 8], outside [0, 10)}}
  ext.compute [#ext.axis<"i", spatial, 10>] ins(%X : memref<10xf32>) outs(%Y : memref<10xf32>)
      maps [affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>] {
  ^bb0(%l: f32):
    %i = ext.index "i" : index
    %c1 = arith.constant 1 : index
    %in = arith.cmpi sge, %i, %c1 : index
    %v = scf.if %in -> f32 {
      scf.yield %l : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %s = arith.addf %v, %l : f32
    ext.yield %s : f32
  }
  return
}

// -----

// A bare axis longer than its dimension (Concat's first input) needs a guard
// that keeps it inside: i < 9 lets i = 8 read row 8 of 8.
func.func @long_axis_weak_guard(%X: memref<8xf32>, %Y: memref<16xf32>) {
  // expected-error @+1 {{'ext.compute' op access 'd0' of input #0 dimension #0 leaves [0, 8) under the branch that reads it, at i = 8; guard the read so that it stays inside}}
  ext.compute [#ext.axis<"i", spatial, 16>] ins(%X : memref<8xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    %i = ext.index "i" : index
    %c9 = arith.constant 9 : index
    %in = arith.cmpi slt, %i, %c9 : index
    %v = scf.if %in -> f32 {
      scf.yield %x : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    ext.yield %v : f32
  }
  return
}

// -----

// Unguarded, a bare axis longer than its dimension is refused.
func.func @long_axis_unguarded(%X: memref<8xf32>, %Y: memref<16xf32>) {
  // expected-error @+1 {{'ext.compute' op input #0 dimension #0 has size 8 but axis 'i' that indexes it has extent 16; an input's axis may be shorter, or longer where a guard keeps the read inside}}
  ext.compute [#ext.axis<"i", spatial, 16>] ins(%X : memref<8xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// An output's axis spans its dimension, shorter or not.
func.func @short_output_axis(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.compute' op output #0 dimension #0 has size 8 but axis 'i' that indexes it has extent 5; an output's axis spans its dimension}}
  ext.compute [#ext.axis<"i", spatial, 5>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
