// C = A B with k a reduce axis (5x7 times 7x3), against numpy's values.

memref.global "private" constant @A : memref<5x7xf32> = dense<[[-4.0, 2.0, 1.0, -1.0, -1.0, 3.0, -4.0], [2.0, -3.0, -4.0, 0.0, 4.0, 2.0, 2.0], [2.0, 3.0, 0.0, -3.0, 3.0, 0.0, 0.0], [-1.0, -3.0, 4.0, 3.0, 1.0, -1.0, 3.0], [0.0, -1.0, 0.0, -2.0, -4.0, 0.0, 3.0]]>
memref.global "private" constant @B : memref<7x3xf32> = dense<[[-4.0, 3.0, 3.0], [-2.0, 1.0, -3.0], [2.0, 2.0, -1.0], [-4.0, 4.0, 0.0], [4.0, 2.0, 3.0], [2.0, -3.0, -1.0], [0.0, 0.0, -4.0]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %A = memref.get_global @A : memref<5x7xf32>
  %B = memref.get_global @B : memref<7x3xf32>
  %C = memref.alloc() : memref<5x3xf32>
  ext.compute [#ext.axis<"i", spatial, 5>, #ext.axis<"j", spatial, 3>, #ext.axis<"k", reduce, 7>]
      ins(%A, %B : memref<5x7xf32>, memref<7x3xf32>) outs(%C : memref<5x3xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  %u_C = memref.cast %C : memref<5x3xf32> to memref<*xf32>
  call @printMemrefF32(%u_C) : (memref<*xf32>) -> ()
  return
}
