// Y[b, a] = sum over r0, r1 of X[a, r0, r1, b]: two reduce axes, one between
// the spatial ones, and an output transposed relative to the axis order.

memref.global "private" constant @X : memref<3x4x5x2xf32> = dense<[[[[4.0, 4.0], [1.0, 0.0], [-1.0, 1.0], [1.0, -2.0], [-4.0, -3.0]], [[4.0, -1.0], [0.0, 0.0], [3.0, -4.0], [-4.0, -2.0], [0.0, 2.0]], [[0.0, -1.0], [4.0, -3.0], [1.0, 0.0], [0.0, 3.0], [-2.0, 4.0]], [[-2.0, 0.0], [0.0, 3.0], [-1.0, -2.0], [-4.0, -1.0], [3.0, -4.0]]], [[[4.0, 0.0], [-3.0, -2.0], [0.0, -2.0], [-4.0, 1.0], [2.0, -3.0]], [[-2.0, -2.0], [1.0, 2.0], [2.0, 4.0], [2.0, -2.0], [-4.0, 1.0]], [[4.0, 4.0], [-2.0, -2.0], [-4.0, -3.0], [0.0, 0.0], [-1.0, -2.0]], [[3.0, 0.0], [3.0, 4.0], [-2.0, -3.0], [4.0, 1.0], [-2.0, 1.0]]], [[[0.0, 4.0], [-2.0, 4.0], [4.0, -3.0], [-3.0, 0.0], [-4.0, -2.0]], [[-1.0, 4.0], [4.0, -3.0], [4.0, -4.0], [2.0, 3.0], [4.0, -2.0]], [[4.0, -3.0], [0.0, 0.0], [-2.0, -4.0], [2.0, -1.0], [1.0, -1.0]], [[-1.0, 3.0], [-4.0, 2.0], [2.0, -1.0], [-2.0, -4.0], [4.0, 4.0]]]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %X = memref.get_global @X : memref<3x4x5x2xf32>
  %Y = memref.alloc() : memref<2x3xf32>
  ext.compute [#ext.axis<"a", spatial, 3>, #ext.axis<"r0", reduce, 4>,
               #ext.axis<"r1", reduce, 5>, #ext.axis<"b", spatial, 2>]
      ins(%X : memref<3x4x5x2xf32>) outs(%Y : memref<2x3xf32>)
      maps [affine_map<(a, r0, r1, b) -> (a, r0, r1, b)>, affine_map<(a, r0, r1, b) -> (b, a)>]
      combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  %u_Y = memref.cast %Y : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u_Y) : (memref<*xf32>) -> ()
  return
}
