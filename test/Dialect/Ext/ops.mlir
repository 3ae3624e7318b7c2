// RUN: ext-opt %s --split-input-file | FileCheck %s
// Round trip: print, parse, print again must be identical, in both forms.
// RUN: ext-opt %s --split-input-file > %t.1.mlir
// RUN: ext-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: ext-opt %s --split-input-file --mlir-print-op-generic > %t.g.mlir
// RUN: ext-opt %t.g.mlir --split-input-file > %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir

// CHECK-LABEL: func @matmul
// CHECK: ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<64x16xf32>, memref<16x32xf32>)
// CHECK-SAME: outs(%{{.*}} : memref<64x32xf32>)
// CHECK-SAME: combiner(sum)
// CHECK: arith.mulf
// CHECK: ext.yield %{{.*}} : f32
func.func @matmul(%A: memref<64x16xf32>, %B: memref<16x32xf32>, %C: memref<64x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>]
      ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>) outs(%C : memref<64x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @batched_matmul
// CHECK: #ext.axis<"b", spatial, 4>
// CHECK-SAME: combiner(sum)
func.func @batched_matmul(%A: memref<4x8x16xf32>, %B: memref<4x16x8xf32>, %C: memref<4x8x8xf32>) {
  ext.compute [#ext.axis<"b", spatial, 4>, #ext.axis<"i", spatial, 8>,
               #ext.axis<"j", spatial, 8>, #ext.axis<"k", reduce, 16>]
      ins(%A, %B : memref<4x8x16xf32>, memref<4x16x8xf32>) outs(%C : memref<4x8x8xf32>)
      maps [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, k, j)>,
            affine_map<(b, i, j, k) -> (b, i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @row_max
// CHECK: combiner(max)
func.func @row_max(%X: memref<8x128xf32>, %M: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, 128>]
      ins(%X : memref<8x128xf32>) outs(%M : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// CHECK-LABEL: func @gemv_f16_acc_f32
// CHECK: arith.extf
func.func @gemv_f16_acc_f32(%A: memref<32x64xf16>, %x: memref<64xf16>, %y: memref<32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 64>]
      ins(%A, %x : memref<32x64xf16>, memref<64xf16>) outs(%y : memref<32xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Convolution as an affine access: the input is read at (oh + kh, ow + kw).
// CHECK-LABEL: func @conv2d
// CHECK: maps [#{{.*}}, #{{.*}}, #{{.*}}]
func.func @conv2d(%I: memref<1x3x10x10xf32>, %W: memref<4x3x3x3xf32>, %O: memref<1x4x8x8xf32>) {
  ext.compute [#ext.axis<"n", spatial, 1>, #ext.axis<"f", spatial, 4>,
               #ext.axis<"oh", spatial, 8>, #ext.axis<"ow", spatial, 8>,
               #ext.axis<"c", reduce, 3>, #ext.axis<"kh", reduce, 3>, #ext.axis<"kw", reduce, 3>]
      ins(%I, %W : memref<1x3x10x10xf32>, memref<4x3x3x3xf32>) outs(%O : memref<1x4x8x8xf32>)
      maps [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
            affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>]
      combiner(sum) {
  ^bb0(%i: f32, %w: f32):
    %p = arith.mulf %i, %w : f32
    ext.yield %p : f32
  }
  return
}

// -----

// argmax with TVM's comm_reducer: (value, index) pairs, identity (-inf, -1).
// CHECK-LABEL: func @argmax
// CHECK: combiner(custom) identity [0xFF800000 : f32, -1 : i32]
// CHECK: ext.index "k" : index
// CHECK: reducer {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
func.func @argmax(%X: memref<4x16xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 16>]
      ins(%X : memref<4x16xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %rv = arith.select %gt, %v, %av : f32
    %ri = arith.select %gt, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}

// -----

// Two reduce axes, an output permuted relative to the axis order, integers.
// CHECK-LABEL: func @two_reduce_axes_transposed
// CHECK: combiner(sum)
func.func @two_reduce_axes_transposed(%X: memref<3x4x5x6xi32>, %Y: memref<6x3xi32>) {
  ext.compute [#ext.axis<"a", spatial, 3>, #ext.axis<"r0", reduce, 4>,
               #ext.axis<"r1", reduce, 5>, #ext.axis<"b", spatial, 6>]
      ins(%X : memref<3x4x5x6xi32>) outs(%Y : memref<6x3xi32>)
      maps [affine_map<(a, r0, r1, b) -> (a, r0, r1, b)>, affine_map<(a, r0, r1, b) -> (b, a)>]
      combiner(sum) {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}

// -----

// Elementwise: no reduce axis, no combiner; a captured scalar; dynamic dims.
// CHECK-LABEL: func @scale
// CHECK-NOT: combiner
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @scale(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %alpha: f32) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<?x8xf32>) outs(%Y : memref<?x8xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%x: f32):
    %s = arith.mulf %x, %alpha : f32
    ext.yield %s : f32
  }
  return
}

// -----

// A full reduction into a 0-d memref, with an attribute dictionary.
// CHECK-LABEL: func @total_prod
// CHECK: combiner(prod) attributes {note = "all"}
func.func @total_prod(%X: memref<2x3xf64>, %P: memref<f64>) {
  ext.compute [#ext.axis<"r", reduce, 2>, #ext.axis<"s", reduce, 3>]
      ins(%X : memref<2x3xf64>) outs(%P : memref<f64>)
      maps [affine_map<(r, s) -> (r, s)>, affine_map<(r, s) -> ()>]
      combiner(prod) attributes {note = "all"} {
  ^bb0(%x: f64):
    ext.yield %x : f64
  }
  return
}

// -----

// No inputs: an iota written from the axis index.
// CHECK-LABEL: func @iota
// CHECK: ext.compute [#ext.axis<"i", spatial, 10>] outs(
func.func @iota(%Y: memref<10xindex>) {
  ext.compute [#ext.axis<"i", spatial, 10>] outs(%Y : memref<10xindex>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %i = ext.index "i" : index
    ext.yield %i : index
  }
  return
}

// -----

// Strided access (stride-2 pooling window), min combiner.
// CHECK-LABEL: func @min_pool
// CHECK: combiner(min)
func.func @min_pool(%X: memref<9xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"o", spatial, 4>, #ext.axis<"w", reduce, 3>]
      ins(%X : memref<9xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(o, w) -> (o * 2 + w)>, affine_map<(o, w) -> (o)>]
      combiner(min) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// Dynamic extents: `i` is bound to A's and C's dynamic dimension #0, `k` to
// A's dynamic dimension #1 and B's #0; `i` is stated a multiple of 16, `j`
// (static) of 8, and multiple_of = 1 is the default, not printed.
// CHECK-LABEL: func @matmul_dynamic
// CHECK: ext.compute [#ext.axis<"i", spatial, ?, multiple_of = 16>, #ext.axis<"j", spatial, 32, multiple_of = 8>, #ext.axis<"k", reduce, ?>]
func.func @matmul_dynamic(%A: memref<?x?xf32>, %B: memref<?x32xf32>, %C: memref<?x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?, multiple_of = 16>, #ext.axis<"j", spatial, 32, multiple_of = 8>, #ext.axis<"k", reduce, ?, multiple_of = 1>]
      ins(%A, %B : memref<?x?xf32>, memref<?x32xf32>) outs(%C : memref<?x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// An input's bare axis may be shorter than its dimension (the first 5 rows
// of 8), or longer where a guard keeps the read inside (Concat: X is read
// only where i < 8).
// CHECK-LABEL: func @short_and_guarded_long_axes
// CHECK: ext.compute [#ext.axis<"i", spatial, 5>]
// CHECK: ext.compute [#ext.axis<"i", spatial, 16>]
func.func @short_and_guarded_long_axes(%X: memref<8xf32>, %Z: memref<8xf32>,
                                       %Y: memref<5xf32>, %C: memref<16xf32>) {
  ext.compute [#ext.axis<"i", spatial, 5>] ins(%X : memref<8xf32>) outs(%Y : memref<5xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>]
      ins(%X, %Z : memref<8xf32>, memref<8xf32>) outs(%C : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i - 8)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32, %z: f32):
    %i = ext.index "i" : index
    %c8 = arith.constant 8 : index
    %lo = arith.cmpi slt, %i, %c8 : index
    %v = scf.if %lo -> f32 {
      scf.yield %x : f32
    } else {
      scf.yield %z : f32
    }
    ext.yield %v : f32
  }
  return
}
