// RUN: ext-opt %s | ext-opt --mlir-print-local-scope | FileCheck %s
// RUN: ext-opt %s --mlir-print-op-generic | ext-opt --mlir-print-local-scope | FileCheck %s

// A paged KV cache's scores: the key of position j of batch b lives in page
// T[b, j floordiv 16] at row j mod 16, head h floordiv 4 (4 query heads per
// KV head). Kc's map has a symbol, bound to T's element; the dimensions that
// read it are checked when the compute runs, the others here.
// CHECK-LABEL: func @paged_scores
// CHECK:         maps [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3)[s0] -> (s0, d2 mod 16, d1 floordiv 4, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2 floordiv 16)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME:    indirect [#ext.indirect<input = 1, symbol = 0, table = 2>]
// CHECK-SAME:    combiner(sum)
func.func @paged_scores(%Q: memref<2x8x32xf32>, %Kc: memref<9x16x2x32xf32>,
                        %T: memref<2x4xi32>, %S: memref<2x8x64xf32>) {
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"h", spatial, 8>,
               #ext.axis<"j", spatial, 64>, #ext.axis<"d", reduce, 32>]
      ins(%Q, %Kc, %T : memref<2x8x32xf32>, memref<9x16x2x32xf32>, memref<2x4xi32>)
      outs(%S : memref<2x8x64xf32>)
      maps [affine_map<(b, h, j, d) -> (b, h, d)>,
            affine_map<(b, h, j, d)[s0] -> (s0, j mod 16, h floordiv 4, d)>,
            affine_map<(b, h, j, d) -> (b, j floordiv 16)>,
            affine_map<(b, h, j, d) -> (b, h, j)>]
      indirect [#ext.indirect<input = 1, symbol = 0, table = 2>]
      combiner(sum) {
  ^bb0(%q: f32, %k: f32, %t: i32):
    %p = arith.mulf %q, %k : f32
    ext.yield %p : f32
  }
  return
}

// Two symbols, two tables (one of index elements), and a symbol inside an
// affine expression (a flat page pool: row s0 * 4 + j mod 4).
// CHECK-LABEL: func @two_tables
// CHECK:         affine_map<(d0, d1)[s0, s1] -> (d0 mod 4 + s0 * 4, s1)>
// CHECK-SAME:    indirect [#ext.indirect<input = 0, symbol = 0, table = 1>, #ext.indirect<input = 0, symbol = 1, table = 2>]
func.func @two_tables(%X: memref<32x6xf32>, %T: memref<2xi64>, %U: memref<3xindex>,
                      %Y: memref<8x3xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"c", spatial, 3>]
      ins(%X, %T, %U : memref<32x6xf32>, memref<2xi64>, memref<3xindex>)
      outs(%Y : memref<8x3xf32>)
      maps [affine_map<(i, c)[s0, s1] -> (s0 * 4 + i mod 4, s1)>,
            affine_map<(i, c) -> (i floordiv 4)>, affine_map<(i, c) -> (c)>,
            affine_map<(i, c) -> (i, c)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>,
                #ext.indirect<input = 0, symbol = 1, table = 2>] {
  ^bb0(%x: f32, %t: i64, %u: index):
    ext.yield %x : f32
  }
  return
}
