// Functions that take memrefs, run by ext-run --entry.

// Z = 2 X + Y, a GPU kernel (2 blocks of 2x8 threads on the emulator).
func.func @axpy(%X: memref<4x8xf32>, %Y: memref<4x8xf32>, %Z: memref<4x8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%X, %Y : memref<4x8xf32>, memref<4x8xf32>) outs(%Z : memref<4x8xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [2, 8], blocks = ["i"], threads = [2, 8]>} {
  ^bb0(%x: f32, %y: f32):
    %two = arith.constant 2.0 : f32
    %p = arith.mulf %x, %two : f32
    %s = arith.addf %p, %y : f32
    ext.yield %s : f32
  }
  return
}

// X[i, j] = 8 i + j
func.func @iota(%X: memref<4x8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      outs(%X : memref<4x8xf32>) maps [affine_map<(i, j) -> (i, j)>] {
  ^bb0:
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(i, j) -> (i * 8 + j)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  return
}

// Integer counts and a 0-d sum.
func.func @count(%A: memref<3xi32>, %S: memref<i32>) {
  ext.compute [#ext.axis<"i", reduce, 3>] ins(%A : memref<3xi32>) outs(%S : memref<i32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> ()>] combiner(sum) {
  ^bb0(%a: i32):
    ext.yield %a : i32
  }
  return
}

func.func @scalar(%x: f32) {
  return
}
