// y = A x with f16 operands and an f32 accumulator (4x9).

memref.global "private" constant @A : memref<4x9xf16> = dense<[[0.0, 1.0, -4.0, -3.0, -2.0, -3.0, -1.0, 2.0, 1.0], [0.0, 3.0, 1.0, -4.0, 2.0, 1.0, 1.0, 1.0, 0.0], [-4.0, 1.0, 3.0, -2.0, 1.0, -4.0, -1.0, -1.0, 4.0], [-3.0, -2.0, -1.0, 4.0, 3.0, -4.0, -2.0, 3.0, -4.0]]>
memref.global "private" constant @x : memref<9xf16> = dense<[3.0, -2.0, 4.0, -2.0, -1.0, 1.0, -3.0, 1.0, 0.0]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %A = memref.get_global @A : memref<4x9xf16>
  %x = memref.get_global @x : memref<9xf16>
  %y = memref.alloc() : memref<4xf32>
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 9>]
      ins(%A, %x : memref<4x9xf16>, memref<9xf16>) outs(%y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  %u_y = memref.cast %y : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u_y) : (memref<*xf32>) -> ()
  return
}

// y:
