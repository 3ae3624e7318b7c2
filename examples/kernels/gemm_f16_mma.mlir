// An f16-in / f32-accumulate GEMM on NVIDIA tensor cores, C = A B, on a
// ragged 200x130x100 problem: 64x64x64 tiles over 2x2 warps (128
// threads), each warp's 32x32 tile as 2x4 `mma.sync.aligned.m16n8k16`
// instructions per 16-deep k step, 32 per 64-deep k-step (a k-step's fixed
// work, its barrier, copies and stage addresses, spread over 32 MMAs: 3.4
// SASS instructions per HMMA at 4096^3, bench/kstep); A and B staged in
// shared memory over 3 pipelined stages (cp.async on sm_80 and later,
// 54 KB: dynamic shared memory), their rows padded (64 -> 72 halves) so
// that the eight 16-byte rows one `ldmatrix` phase reads fall in different
// banks.
// The accumulators stay in the lanes' registers in the instruction's
// layout; the copies' zero fill makes the ragged edges' products zero.
//
// @main builds the inputs from their indices, runs the scheduled GEMM,
// recomputes C with the unscheduled reference and prints max |C - reference|
// (0: small integers are exact in f16 and f32).
//
//   ext-opt gemm_f16_mma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80"
//   ext-run gemm_f16_mma.mlir                       # the CPU emulator

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_f16(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [64, 64, 64], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2], vector = 8, stages = 3,
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 64, offset = 8>]>,
                 #ext.cache<operand = 1, align = [#ext.storage_align<dim = 0, factor = 64, offset = 8>]>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<200x100xf16>
  %B = memref.alloc() : memref<100x130xf16>
  %C = memref.alloc() : memref<200x130xf32>
  %R = memref.alloc() : memref<200x130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"k", spatial, 100>]
      outs(%A : memref<200x100xf16>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  ext.compute [#ext.axis<"k", spatial, 100>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<100x130xf16>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }
  call @gemm_f16(%A, %B, %C) : (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<200x100xf16>, memref<100x130xf16>, memref<200x130xf32>) -> ()
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
