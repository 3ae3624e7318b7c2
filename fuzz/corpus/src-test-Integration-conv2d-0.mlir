// 2-D convolution (NCHW, 3x3 window) written as the affine access (oh + kh, ow + kw).

memref.global "private" constant @I : memref<1x2x5x5xf32> = dense<[[[[3.0, 4.0, 1.0, -1.0, -1.0], [-1.0, 3.0, -2.0, -3.0, -1.0], [-4.0, -4.0, -4.0, 2.0, 2.0], [2.0, 0.0, 2.0, -3.0, 4.0], [0.0, 4.0, -3.0, 0.0, 2.0]], [[0.0, 0.0, -3.0, -1.0, -2.0], [-2.0, 2.0, 1.0, 1.0, -1.0], [4.0, -4.0, -1.0, -3.0, -1.0], [4.0, -1.0, 4.0, 0.0, 2.0], [0.0, -2.0, 2.0, 4.0, -2.0]]]]>
memref.global "private" constant @W : memref<3x2x3x3xf32> = dense<[[[[1.0, -1.0, 1.0], [1.0, 0.0, 1.0], [-1.0, -2.0, -2.0]], [[0.0, 2.0, -2.0], [0.0, 1.0, -1.0], [1.0, -1.0, 2.0]]], [[[0.0, 0.0, -2.0], [0.0, 2.0, -2.0], [1.0, 0.0, 1.0]], [[1.0, 0.0, -1.0], [1.0, -2.0, 0.0], [-2.0, 1.0, 1.0]]], [[[-2.0, 1.0, 0.0], [1.0, -2.0, -2.0], [0.0, -2.0, -1.0]], [[1.0, -2.0, 1.0], [-2.0, -2.0, 0.0], [1.0, -2.0, -1.0]]]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %I = memref.get_global @I : memref<1x2x5x5xf32>
  %W = memref.get_global @W : memref<3x2x3x3xf32>
  %O = memref.alloc() : memref<1x3x3x3xf32>
  ext.compute [#ext.axis<"n", spatial, 1>, #ext.axis<"f", spatial, 3>,
               #ext.axis<"oh", spatial, 3>, #ext.axis<"ow", spatial, 3>,
               #ext.axis<"c", reduce, 2>, #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>]
      ins(%I, %W : memref<1x2x5x5xf32>, memref<3x2x3x3xf32>) outs(%O : memref<1x3x3x3xf32>)
      maps [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>]
      combiner(sum) {
  ^bb0(%i: f32, %w: f32):
    %p = arith.mulf %i, %w : f32
    ext.yield %p : f32
  }
  %u_O = memref.cast %O : memref<1x3x3x3xf32> to memref<*xf32>
  call @printMemrefF32(%u_O) : (memref<*xf32>) -> ()
  return
}
