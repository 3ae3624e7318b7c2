// A tiled f32 GEMM, C = A B, on a ragged 200x130x100 problem: 128x128 output
// tiles over 16x16 threads, each thread holding an 8x8 register tile made of
// 2x2 runs of 4x4 consecutive points (`#ext.blocked<thread_tile = [4, 4]>`),
// 8-deep k steps pipelined over 3 shared buffers (stages = 3: cp.async on
// sm_80+, registers elsewhere), A and B staged with 16-byte copies where the
// rows allow (B's 130-float rows take 8-byte copies; a remark says so), tiles
// walked in groups of 2 rows for L2 reuse. Per 4 k-points a thread reads 8
// float4 of A and 8 of B from shared memory and does 256 fused multiply-adds
// from registers (the classic register-blocked SGEMM); the k tail (100 = 12
// x 8 + 4) is zero-filled. C is staged (operand 2): the epilogue writes the
// 128x128 tile to shared memory in the bytes of the k-loop's A and B buffers
// (64 KB: dynamic shared memory on NVIDIA), then stores its rows.
//
// @main builds the inputs from their indices, runs the scheduled GEMM (a GPU
// kernel: on the CPU emulator with `ext-run`, on a GPU with
// `ext-run --target=cuda`), recomputes C with the unscheduled reference
// (plain loops), and prints max |C - reference| (exact: small integers);
// `ext-run gemm_f32.mlir` prints 0.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [128, 128, 8], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>],
        swizzle = 2, stages = 3>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<200x100xf32>
  %B = memref.alloc() : memref<100x130xf32>
  %C = memref.alloc() : memref<200x130xf32>
  %R = memref.alloc() : memref<200x130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 100>]
      outs(%A : memref<200x100xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 100>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<100x130xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @gemm(%A, %B, %C) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 200>, #ext.axis<"j", reduce, 130>]
      ins(%C, %R : memref<200x130xf32>, memref<200x130xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
