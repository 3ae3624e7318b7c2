// GEMV, y = A x, on a ragged 300x517 problem: 4 rows per CTA, each row's
// reduce axis over 64 threads (a shuffle-xor butterfly in each warp, then the
// row's 2 warps through shared memory); threads stride over the 517 columns.
//
// @main runs the kernel and the unscheduled reference and prints
// max |y - reference| (exact: small integers).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemv(%A: memref<300x517xf32>, %x: memref<517xf32>, %y: memref<300xf32>) {
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"k", reduce, 517>]
      ins(%A, %x : memref<300x517xf32>, memref<517xf32>) outs(%y : memref<300xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>]
      combiner(sum)
      attributes {schedule = #ext.schedule<tile = [4, 517], blocks = ["i"], threads = [4, 64]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<300x517xf32>, %x: memref<517xf32>, %y: memref<300xf32>) {
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"k", reduce, 517>]
      ins(%A, %x : memref<300x517xf32>, memref<517xf32>) outs(%y : memref<300xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<300x517xf32>
  %x = memref.alloc() : memref<517xf32>
  %y = memref.alloc() : memref<300xf32>
  %r = memref.alloc() : memref<300xf32>
  %err = memref.alloc() : memref<f32>
  // A[i, k] = ((5i + 3k) mod 9) - 4, x[k] = (k mod 7) - 3
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"k", spatial, 517>]
      outs(%A : memref<300x517xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 5 + k * 3) mod 9 - 4)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 517>] outs(%x : memref<517xf32>)
      maps [affine_map<(k) -> (k)>] {
  ^bb0:
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(k) -> (k mod 7 - 3)>(%k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @gemv(%A, %x, %y) : (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> ()
  call @reference(%A, %x, %r) : (memref<300x517xf32>, memref<517xf32>, memref<300xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 300>] ins(%y, %r : memref<300xf32>, memref<300xf32>)
      outs(%err : memref<f32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>] combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %e = math.absf %d : f32
    ext.yield %e : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
