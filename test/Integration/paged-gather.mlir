// Indirect reads on the CPU: pages of a paged cache found through a block
// table. Kc holds 4 pages of 2 rows of 3 (Kc[p, r, c] = 100 p + 10 r + c);
// T maps each batch's 2 logical pages to physical ones in shuffled order
// (T = [[3, 2], [1, 0]]); S[b, j] = sum_c Kc[T[b, j floordiv 2], j mod 2, c]
// = 3 (100 T[b, j floordiv 2] + 10 (j mod 2)) + 3. A table entry outside
// the pages stops the run with a message naming the compute, the table and
// the input it indexes.
//
// RUN: ext-run %s | FileCheck %s
// RUN: not ext-run --entry=outside %s 2>&1 | FileCheck %s --check-prefix=OUTSIDE

// CHECK: {{\[}}[903,{{ +}}933,{{ +}}603,{{ +}}633],
// CHECK-NEXT: [303,{{ +}}333,{{ +}}3,{{ +}}33]]
// OUTSIDE: ext-emu: error: host check failed: ext.compute 'scores': an entry of table input #1 indexes dimension #0 of input #0 outside [0, 4)

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @scores(%Kc: memref<4x2x3xf32>, %T: memref<2x2xi32>, %S: memref<2x4xf32>) {
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"j", spatial, 4>, #ext.axis<"c", reduce, 3>]
      ins(%Kc, %T : memref<4x2x3xf32>, memref<2x2xi32>) outs(%S : memref<2x4xf32>)
      maps [affine_map<(b, j, c)[s0] -> (s0, j mod 2, c)>,
            affine_map<(b, j, c) -> (b, j floordiv 2)>, affine_map<(b, j, c) -> (b, j)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>]
      combiner(sum) attributes {name = "scores"} {
  ^bb0(%k: f32, %t: i32):
    ext.yield %k : f32
  }
  return
}

// Fills the cache and the table (entry T[b, q] = 3 - 2 b - q + bad: `bad`
// moves every entry up, the last past the pages), runs, prints S.
func.func @run(%bad: i32) {
  %Kc = memref.alloc() : memref<4x2x3xf32>
  %T = memref.alloc() : memref<2x2xi32>
  %S = memref.alloc() : memref<2x4xf32>
  ext.compute [#ext.axis<"p", spatial, 4>, #ext.axis<"r", spatial, 2>, #ext.axis<"c", spatial, 3>]
      outs(%Kc : memref<4x2x3xf32>) maps [affine_map<(p, r, c) -> (p, r, c)>] {
  ^bb0:
    %p = ext.index "p" : index
    %r = ext.index "r" : index
    %c = ext.index "c" : index
    %v = affine.apply affine_map<(p, r, c) -> (p * 100 + r * 10 + c)>(%p, %r, %c)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"q", spatial, 2>]
      outs(%T : memref<2x2xi32>) maps [affine_map<(b, q) -> (b, q)>] {
  ^bb0:
    %b = ext.index "b" : index
    %q = ext.index "q" : index
    %v = affine.apply affine_map<(b, q) -> (3 - b * 2 - q)>(%b, %q)
    %vi = arith.index_cast %v : index to i32
    %e = arith.addi %vi, %bad : i32
    ext.yield %e : i32
  }
  call @scores(%Kc, %T, %S) : (memref<4x2x3xf32>, memref<2x2xi32>, memref<2x4xf32>) -> ()
  %u = memref.cast %S : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %Kc : memref<4x2x3xf32>
  memref.dealloc %T : memref<2x2xi32>
  memref.dealloc %S : memref<2x4xf32>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : i32
  call @run(%c0) : (i32) -> ()
  return
}

func.func @outside() {
  %c1 = arith.constant 1 : i32
  call @run(%c1) : (i32) -> ()
  return
}
