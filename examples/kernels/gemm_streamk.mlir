// A Stream-K f32 GEMM, C = A B, on a ragged 200x130x100 problem: 12 output
// tiles (64x64, 16x16 threads, each holding a 4x4 register block; 16-byte
// copies and shared reads, unpadded tiles free of bank conflicts) of 7
// k-iterations (16 deep), 84 iterations
// shared by 5 CTAs (16 or 17 each), so tiles are split at arbitrary
// iterations. A CTA stores the partial of the tile it starts in the
// workspace and sets its flag (release); the CTA that runs a tile's last
// iteration waits for its contributors (acquire), adds their partials in CTA
// order and writes the tile, through a shared staging tile (operand 2) that
// reuses the k-loop tiles' bytes: bitwise the same result on every run.
// `decomposition = #ext.stream_k` without a grid uses the chip's SM count.
//
// @main builds the inputs from their indices, runs the scheduled GEMM (a GPU
// kernel: on the CPU emulator with `ext-run`, on a GPU with
// `ext-run --target=cuda`), recomputes C with the unscheduled reference
// (plain loops), and prints max |C - reference| (exact: small integers).
//
//   ext-opt gemm_streamk.mlir --ext-schedule-to-gpu  # the gpu.launch + workspace
//   ext-run gemm_streamk.mlir                        # prints 0

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_streamk(%A: memref<200x100xf32>, %B: memref<100x130xf32>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf32>, memref<100x130xf32>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [64, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>,
                 #ext.cache<operand = 2>],
        decomposition = #ext.stream_k<grid = 5>>} {
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
  call @gemm_streamk(%A, %B, %C) : (memref<200x100xf32>, memref<100x130xf32>, memref<200x130xf32>) -> ()
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
