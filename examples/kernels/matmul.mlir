// A 48x40 = (48x64)(64x40) f32 matmul with `k` a reduce axis, on inputs built
// in-kernel from their indices:
//   A[i, k] = ((3i + 5k) mod 11) - 5      B[k, j] = ((7k + 2j) mod 13) - 6
// so any tool (numpy in scripts/demo.sh) can recompute the reference.
//
//   ext-opt examples/kernels/matmul.mlir --ext-compute-to-loops   # the loops
//   ext-run examples/kernels/matmul.mlir                         # the numbers

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %A = memref.alloc() : memref<48x64xf32>
  %B = memref.alloc() : memref<64x40xf32>
  %C = memref.alloc() : memref<48x40xf32>

  ext.compute [#ext.axis<"i", spatial, 48>, #ext.axis<"k", spatial, 64>]
      outs(%A : memref<48x64xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 64>, #ext.axis<"j", spatial, 40>]
      outs(%B : memref<64x40xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }

  // C[i, j] = sum over k of A[i, k] * B[k, j]
  ext.compute [#ext.axis<"i", spatial, 48>, #ext.axis<"j", spatial, 40>,
               #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<48x64xf32>, memref<64x40xf32>) outs(%C : memref<48x40xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }

  %u = memref.cast %C : memref<48x40xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %A : memref<48x64xf32>
  memref.dealloc %B : memref<64x40xf32>
  memref.dealloc %C : memref<48x40xf32>
  return
}
