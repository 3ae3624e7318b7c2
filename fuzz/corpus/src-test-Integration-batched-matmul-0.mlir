// C[b] = A[b] B[b]: a spatial batch axis, k a reduce axis.

memref.global "private" constant @A : memref<2x3x4xf32> = dense<[[[0.0, -3.0, 2.0, 2.0], [4.0, 2.0, -1.0, 4.0], [-1.0, -2.0, 4.0, -1.0]], [[-4.0, 0.0, 3.0, -3.0], [0.0, -3.0, 2.0, 0.0], [-2.0, -2.0, 1.0, 2.0]]]>
memref.global "private" constant @B : memref<2x4x2xf32> = dense<[[[4.0, -1.0], [-3.0, 3.0], [1.0, 2.0], [-4.0, -2.0]], [[2.0, 3.0], [-1.0, 3.0], [3.0, -1.0], [4.0, -2.0]]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %A = memref.get_global @A : memref<2x3x4xf32>
  %B = memref.get_global @B : memref<2x4x2xf32>
  %C = memref.alloc() : memref<2x3x2xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 3>,
               #ext.axis<"j", spatial, 2>, #ext.axis<"k", reduce, 4>]
      ins(%A, %B : memref<2x3x4xf32>, memref<2x4x2xf32>) outs(%C : memref<2x3x2xf32>)
      maps [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, k, j)>,
            affine_map<(b, i, j, k) -> (b, i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  %u_C = memref.cast %C : memref<2x3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u_C) : (memref<*xf32>) -> ()
  return
}
