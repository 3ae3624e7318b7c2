// C = A B with MROWS x 8 A, 8 x 130 B, a 64x64x16 tile: the i tile (64) and
// the k tile (16) are larger than their axes for MROWS < 64 (k always), so
// the kernel runs them as masked tiles: zero-filled copies, guarded stores,
// one ragged k-step. `sed` puts the row count in place of MROWS and the
// decomposition in place of DECOMPOSITION. @main prints max |C - reference|
// on integer data (exact: 0).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm(%A: memref<MROWSx8xf32>, %B: memref<8x130xf32>, %C: memref<MROWSx130xf32>) {
  ext.compute [#ext.axis<"i", spatial, MROWS>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 8>]
      ins(%A, %B : memref<MROWSx8xf32>, memref<8x130xf32>) outs(%C : memref<MROWSx130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [64, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = DECOMPOSITION>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<MROWSx8xf32>, %B: memref<8x130xf32>, %C: memref<MROWSx130xf32>) {
  ext.compute [#ext.axis<"i", spatial, MROWS>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 8>]
      ins(%A, %B : memref<MROWSx8xf32>, memref<8x130xf32>) outs(%C : memref<MROWSx130xf32>)
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
  %A = memref.alloc() : memref<MROWSx8xf32>
  %B = memref.alloc() : memref<8x130xf32>
  %C = memref.alloc() : memref<MROWSx130xf32>
  %R = memref.alloc() : memref<MROWSx130xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6.
  ext.compute [#ext.axis<"i", spatial, MROWS>, #ext.axis<"k", spatial, 8>]
      outs(%A : memref<MROWSx8xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 8>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<8x130xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @gemm(%A, %B, %C) : (memref<MROWSx8xf32>, memref<8x130xf32>, memref<MROWSx130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<MROWSx8xf32>, memref<8x130xf32>, memref<MROWSx130xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, MROWS>, #ext.axis<"j", reduce, 130>]
      ins(%C, %R : memref<MROWSx130xf32>, memref<MROWSx130xf32>) outs(%err : memref<f32>)
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
