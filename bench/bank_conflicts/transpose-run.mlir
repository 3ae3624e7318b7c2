// bench/bank_conflicts/transpose.mlir with a @main, for ext-run: B = A^T
// through a shared 32x32 tile read down its columns (32-way unpadded).
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @transpose(%A: memref<100x90xf32>, %B: memref<90x100xf32>) {
  ext.compute [#ext.axis<"i", spatial, 90>, #ext.axis<"j", spatial, 100>]
      ins(%A : memref<100x90xf32>) outs(%B : memref<90x100xf32>)
      maps [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 32],
        cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<100x90xf32>
  %B = memref.alloc() : memref<90x100xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%A : memref<100x90xf32>)
  call @transpose(%A, %B) : (memref<100x90xf32>, memref<90x100xf32>) -> ()
  %s = memref.subview %B[0, 0] [1, 1] [1, 1] : memref<90x100xf32> to memref<1x1xf32, strided<[100, 1]>>
  %u = memref.cast %s : memref<1x1xf32, strided<[100, 1]>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
