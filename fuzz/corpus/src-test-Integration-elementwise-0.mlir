// Computes without reduce axes: an iota from ext.index, then y = relu(x - 4)
// with a captured scalar, then a stride-2 min-pool (window 3) as an affine
// access, then the total into a 0-d memref with two reduce axes.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %x = memref.alloc() : memref<9xf32>
  %y = memref.alloc() : memref<9xf32>
  %p = memref.alloc() : memref<4xf32>
  %t = memref.alloc() : memref<f32>
  %four = arith.constant 4.0 : f32
  ext.compute [#ext.axis<"i", spatial, 9>] outs(%x : memref<9xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %i = ext.index "i" : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    ext.yield %f : f32
  }
  ext.compute [#ext.axis<"i", spatial, 9>] ins(%x : memref<9xf32>) outs(%y : memref<9xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%v: f32):
    %d = arith.subf %v, %four : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %d, %z : f32
    ext.yield %r : f32
  }
  // p[o] = min(x[2o], x[2o+1], x[2o+2]) over the iota: 0, 2, 4, 6
  ext.compute [#ext.axis<"o", spatial, 4>, #ext.axis<"w", reduce, 3>]
      ins(%x : memref<9xf32>) outs(%p : memref<4xf32>)
      maps [affine_map<(o, w) -> (o * 2 + w)>, affine_map<(o, w) -> (o)>] combiner(min) {
  ^bb0(%v: f32):
    ext.yield %v : f32
  }
  // t = sum over a in [0,3), b in [0,3) of y[3a + b] = sum(relu(i - 4)) = 10
  ext.compute [#ext.axis<"a", reduce, 3>, #ext.axis<"b", reduce, 3>]
      ins(%y : memref<9xf32>) outs(%t : memref<f32>)
      maps [affine_map<(a, b) -> (a * 3 + b)>, affine_map<(a, b) -> ()>] combiner(sum) {
  ^bb0(%v: f32):
    ext.yield %v : f32
  }
  %ux = memref.cast %x : memref<9xf32> to memref<*xf32>
  %uy = memref.cast %y : memref<9xf32> to memref<*xf32>
  %up = memref.cast %p : memref<4xf32> to memref<*xf32>
  %ut = memref.cast %t : memref<f32> to memref<*xf32>
  call @printMemrefF32(%ux) : (memref<*xf32>) -> ()
  call @printMemrefF32(%uy) : (memref<*xf32>) -> ()
  call @printMemrefF32(%up) : (memref<*xf32>) -> ()
  call @printMemrefF32(%ut) : (memref<*xf32>) -> ()
  return
}
