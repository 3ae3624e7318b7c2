// A ragged 150x130x200 f32 GEMM with 64x64x16 tiles: 9 output tiles of 13
// k-iterations. `sed` puts the decomposition in place of DECOMPOSITION.
// @main prints (1) max |C - reference| on integer data (exact: 0), (2) a
// bit hash of C on non-integer data (sum of the f32 bit patterns as i32),
// which tests compare across emulator seeds and schedules: a fixed combine
// order gives the same bits.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

func.func @gemm(%A: memref<150x200xf32>, %B: memref<200x130xf32>, %C: memref<150x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 150>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 200>]
      ins(%A, %B : memref<150x200xf32>, memref<200x130xf32>) outs(%C : memref<150x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [64, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>,
                 #ext.cache<operand = 1>],
        decomposition = DECOMPOSITION>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<150x200xf32>, %B: memref<200x130xf32>, %C: memref<150x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 150>, #ext.axis<"j", spatial, 130>,
               #ext.axis<"k", reduce, 200>]
      ins(%A, %B : memref<150x200xf32>, memref<200x130xf32>) outs(%C : memref<150x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// A[i, k] = (((3i + 5k) mod 11) - 5) * scale, B[k, j] = ((7k + 2j) mod 13) - 6.
func.func @fill(%A: memref<150x200xf32>, %B: memref<200x130xf32>, %scale: f32) {
  ext.compute [#ext.axis<"i", spatial, 150>, #ext.axis<"k", spatial, 200>]
      outs(%A : memref<150x200xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %vs = arith.mulf %vf, %scale : f32
    ext.yield %vs : f32
  }
  ext.compute [#ext.axis<"k", spatial, 200>, #ext.axis<"j", spatial, 130>]
      outs(%B : memref<200x130xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<150x200xf32>
  %B = memref.alloc() : memref<200x130xf32>
  %C = memref.alloc() : memref<150x130xf32>
  %R = memref.alloc() : memref<150x130xf32>
  %err = memref.alloc() : memref<f32>
  %hash = memref.alloc() : memref<i32>
  %one = arith.constant 1.0 : f32
  call @fill(%A, %B, %one) : (memref<150x200xf32>, memref<200x130xf32>, f32) -> ()
  call @gemm(%A, %B, %C) : (memref<150x200xf32>, memref<200x130xf32>, memref<150x130xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<150x200xf32>, memref<200x130xf32>, memref<150x130xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 150>, #ext.axis<"j", reduce, 130>]
      ins(%C, %R : memref<150x130xf32>, memref<150x130xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %frac = arith.constant 0.1 : f32
  call @fill(%A, %B, %frac) : (memref<150x200xf32>, memref<200x130xf32>, f32) -> ()
  call @gemm(%A, %B, %C) : (memref<150x200xf32>, memref<200x130xf32>, memref<150x130xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 150>, #ext.axis<"j", reduce, 130>]
      ins(%C : memref<150x130xf32>) outs(%hash : memref<i32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(sum) {
  ^bb0(%c: f32):
    %bits = arith.bitcast %c : f32 to i32
    ext.yield %bits : i32
  }
  %uh = memref.cast %hash : memref<i32> to memref<*xi32>
  call @printMemrefI32(%uh) : (memref<*xi32>) -> ()
  return
}
