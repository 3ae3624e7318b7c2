// A GEMM over a dynamic M under #ext.auto (4 SMs) and split-K, called at
// M = 1 and M = 100: the host plans each launch from M.
func.func @gemm_auto(%A: memref<?x64xf32>, %B: memref<64x64xf32>, %C: memref<?x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x64xf32>) outs(%C : memref<?x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 32, 16], blocks = ["i", "j"],
        threads = [8, 16, 1], decomposition = #ext.auto<sms = 4>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_split_k(%A: memref<?x64xf32>, %B: memref<64x64xf32>, %C: memref<?x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x64xf32>) outs(%C : memref<?x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 32, 16], blocks = ["i", "j"],
        threads = [8, 16, 1], decomposition = #ext.split_k<slices = 2>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @run(%m: index) {
  %A = memref.alloc(%m) : memref<?x64xf32>
  %B = memref.alloc() : memref<64x64xf32>
  %C = memref.alloc(%m) : memref<?x64xf32>
  call @gemm_auto(%A, %B, %C) : (memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>) -> ()
  call @gemm_split_k(%A, %B, %C) : (memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>) -> ()
  memref.dealloc %A : memref<?x64xf32>
  memref.dealloc %B : memref<64x64xf32>
  memref.dealloc %C : memref<?x64xf32>
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  call @run(%c1) : (index) -> ()
  call @run(%c100) : (index) -> ()
  return
}
