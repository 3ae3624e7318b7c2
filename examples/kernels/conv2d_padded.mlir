// A 3x3 "same" convolution, NHWC, of a 2x9x7x3 image with 4 filters, padded
// in the compute itself: the read of X[n, y + kh - 1, x + kw - 1, c] sits in
// the branch of an scf.if taken only inside the image (TVM's if_then_else,
// evaluating one branch), so it never reads outside X, and the verifier
// proves it under that guard; the padding costs no padded copy. Scheduled
// on 4x4 output tiles of 4 filters, X cached in shared memory (the copy
// zero-fills the halo outside the image).
//
// @main runs the kernel and a reference that pads X into a buffer first and
// convolves it without guards, and prints max |kernel - reference| (small
// integers: 0).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

#x = affine_map<(n, y, x, k, kh, kw, c) -> (n, y + kh - 1, x + kw - 1, c)>
#w = affine_map<(n, y, x, k, kh, kw, c) -> (kh, kw, c, k)>
#o = affine_map<(n, y, x, k, kh, kw, c) -> (n, y, x, k)>

func.func @conv2d_padded(%X: memref<2x9x7x3xf32>, %W: memref<3x3x3x4xf32>, %Y: memref<2x9x7x4xf32>) {
  ext.compute [#ext.axis<"n", spatial, 2>, #ext.axis<"y", spatial, 9>, #ext.axis<"x", spatial, 7>,
               #ext.axis<"k", spatial, 4>, #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>,
               #ext.axis<"c", reduce, 3>]
      ins(%X, %W : memref<2x9x7x3xf32>, memref<3x3x3x4xf32>) outs(%Y : memref<2x9x7x4xf32>)
      maps [#x, #w, #o] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 4, 4, 4, 3, 3, 3], blocks = ["n", "y", "x"],
                  threads = [1, 4, 4, 4, 1, 1, 1], cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%v: f32, %w: f32):
    %y = ext.index "y" : index
    %x = ext.index "x" : index
    %kh = ext.index "kh" : index
    %kw = ext.index "kw" : index
    // The input row and column, inside [0, 9) x [0, 7)?
    %iy = affine.apply affine_map<(y, kh) -> (y + kh - 1)>(%y, %kh)
    %ix = affine.apply affine_map<(x, kw) -> (x + kw - 1)>(%x, %kw)
    %c0 = arith.constant 0 : index
    %h = arith.constant 9 : index
    %wd = arith.constant 7 : index
    %y0 = arith.cmpi sge, %iy, %c0 : index
    %y1 = arith.cmpi slt, %iy, %h : index
    %x0 = arith.cmpi sge, %ix, %c0 : index
    %x1 = arith.cmpi slt, %ix, %wd : index
    %iny = arith.andi %y0, %y1 : i1
    %inx = arith.andi %x0, %x1 : i1
    %inside = arith.andi %iny, %inx : i1
    %p = scf.if %inside -> f32 {
      %m = arith.mulf %v, %w : f32
      scf.yield %m : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    ext.yield %p : f32
  }
  return
}

// The reference: X padded into an 11x9 buffer, then an unguarded convolution.
func.func @reference(%X: memref<2x9x7x3xf32>, %W: memref<3x3x3x4xf32>, %Y: memref<2x9x7x4xf32>) {
  %P = memref.alloc() : memref<2x11x9x3xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%P : memref<2x11x9x3xf32>)
  %inner = memref.subview %P[0, 1, 1, 0] [2, 9, 7, 3] [1, 1, 1, 1]
      : memref<2x11x9x3xf32> to memref<2x9x7x3xf32, strided<[297, 27, 3, 1], offset: 30>>
  memref.copy %X, %inner : memref<2x9x7x3xf32> to memref<2x9x7x3xf32, strided<[297, 27, 3, 1], offset: 30>>
  ext.compute [#ext.axis<"n", spatial, 2>, #ext.axis<"y", spatial, 9>, #ext.axis<"x", spatial, 7>,
               #ext.axis<"k", spatial, 4>, #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>,
               #ext.axis<"c", reduce, 3>]
      ins(%P, %W : memref<2x11x9x3xf32>, memref<3x3x3x4xf32>) outs(%Y : memref<2x9x7x4xf32>)
      maps [affine_map<(n, y, x, k, kh, kw, c) -> (n, y + kh, x + kw, c)>, #w, #o] combiner(sum) {
  ^bb0(%v: f32, %w: f32):
    %m = arith.mulf %v, %w : f32
    ext.yield %m : f32
  }
  memref.dealloc %P : memref<2x11x9x3xf32>
  return
}

func.func @main() {
  %X = memref.alloc() : memref<2x9x7x3xf32>
  %W = memref.alloc() : memref<3x3x3x4xf32>
  %Y = memref.alloc() : memref<2x9x7x4xf32>
  %R = memref.alloc() : memref<2x9x7x4xf32>
  %err = memref.alloc() : memref<f32>
  // Small integers: x = (5n + 3y + 2x + c) mod 7 - 3, w = (kh + 2kw + 3c + k) mod 5 - 2.
  ext.compute [#ext.axis<"n", spatial, 2>, #ext.axis<"y", spatial, 9>, #ext.axis<"x", spatial, 7>,
               #ext.axis<"c", spatial, 3>] outs(%X : memref<2x9x7x3xf32>)
      maps [affine_map<(n, y, x, c) -> (n, y, x, c)>] {
  ^bb0:
    %n = ext.index "n" : index
    %y = ext.index "y" : index
    %x = ext.index "x" : index
    %c = ext.index "c" : index
    %v = affine.apply affine_map<(n, y, x, c) -> ((n * 5 + y * 3 + x * 2 + c) mod 7)>(%n, %y, %x, %c)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %three = arith.constant 3.0 : f32
    %r = arith.subf %vf, %three : f32
    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"kh", spatial, 3>, #ext.axis<"kw", spatial, 3>, #ext.axis<"c", spatial, 3>,
               #ext.axis<"k", spatial, 4>] outs(%W : memref<3x3x3x4xf32>)
      maps [affine_map<(kh, kw, c, k) -> (kh, kw, c, k)>] {
  ^bb0:
    %kh = ext.index "kh" : index
    %kw = ext.index "kw" : index
    %c = ext.index "c" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(kh, kw, c, k) -> ((kh + kw * 2 + c * 3 + k) mod 5)>(%kh, %kw, %c, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %two = arith.constant 2.0 : f32
    %r = arith.subf %vf, %two : f32
    ext.yield %r : f32
  }
  call @conv2d_padded(%X, %W, %Y) : (memref<2x9x7x3xf32>, memref<3x3x3x4xf32>, memref<2x9x7x4xf32>) -> ()
  call @reference(%X, %W, %R) : (memref<2x9x7x3xf32>, memref<3x3x3x4xf32>, memref<2x9x7x4xf32>) -> ()
  ext.compute [#ext.axis<"n", reduce, 2>, #ext.axis<"y", reduce, 9>, #ext.axis<"x", reduce, 7>,
               #ext.axis<"k", reduce, 4>]
      ins(%Y, %R : memref<2x9x7x4xf32>, memref<2x9x7x4xf32>) outs(%err : memref<f32>)
      maps [affine_map<(n, y, x, k) -> (n, y, x, k)>, affine_map<(n, y, x, k) -> (n, y, x, k)>,
            affine_map<(n, y, x, k) -> ()>] combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %m = math.absf %d : f32
    ext.yield %m : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
