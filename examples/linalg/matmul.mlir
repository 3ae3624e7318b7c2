// A linalg.matmul through ext, as a front end (torch-mlir, StableHLO through
// linalg, hand-written linalg) would hand it over: C = A B on a ragged
// 200x130x100 f32 problem, C zero-filled first. The transform script at the
// end imports the linalg ops (`ext-from-linalg`: the matmul becomes an
// ext.compute over axes d0, d1 (spatial) and d2 (reduce); the fill of the
// sum's identity is dropped) and schedules the GEMM in @matmul with the
// register-blocked schedule of examples/kernels/gemm_f32.mlir. ext's
// pipelines run the script first, so every tool takes this file as it is:
//
//   ext-run matmul.mlir                                   # CPU emulator
//   ext-opt matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90"
//   ext-opt matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942"
//
// @main fills A and B from their indices (linalg.generic with linalg.index),
// runs @matmul (a GPU kernel) and @reference (the same linalg.matmul, not
// scheduled: host loops) and prints max |C - reference|: 0 (small integers).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @matmul(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<200x130xf32>)
  linalg.matmul ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>)
                outs(%C : memref<200x130xf32>)
  return
}

func.func @reference(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<200x130xf32>)
  linalg.matmul ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>)
                outs(%C : memref<200x130xf32>)
  return
}

#id = affine_map<(i, j) -> (i, j)>
func.func @main() {
  %A = memref.alloc() : memref<200x100xf32>
  %B = memref.alloc() : memref<100x130xf32>
  %C = memref.alloc() : memref<200x130xf32>
  %R = memref.alloc() : memref<200x130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%A : memref<200x100xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%B : memref<100x130xf32>) {
  ^bb0(%out: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  call @matmul(%A, %B, %C) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
  // err = max |C - R|: a max reduction; 0 is not max's identity (-inf), so
  // ext-from-linalg reduces into a fresh buffer and then takes the max with 0.
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%err : memref<f32>)
  linalg.generic {indexing_maps = [#id, #id, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%C, %R : memref<200x130xf32>, memref<200x130xf32>) outs(%err : memref<f32>) {
  ^bb0(%c: f32, %r: f32, %acc: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %module = transform.apply_registered_pass "ext-from-linalg" to %root
        : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} attributes {sym_name = "matmul"} in %module
        : (!transform.any_op) -> !transform.any_op
    %gemm = transform.ext.match_computes in %f : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<
        tile = [128, 128, 8], blocks = ["d0", "d1"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>],
        swizzle = 2, stages = 3> to %gemm : !transform.any_op
    transform.yield
  }
}
