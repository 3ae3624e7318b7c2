// RUN: ext-opt %s --split-input-file | FileCheck %s
// RUN: ext-opt %s --split-input-file > %t.1.mlir
// RUN: ext-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// Low-bit weights (issue 54): unsigned bytes are i8 (the ops carry the
// signedness), narrow integers and f8 formats are element types, and packed
// or grouped operands are read through floordiv/mod accesses.

// W4A16: two 4-bit weights per byte, a scale and a zero per 128-wide group.
// CHECK-LABEL: func @w4a16
// CHECK: ext.compute
// CHECK-SAME: memref<16x128xi8>
// CHECK: arith.shrui
// CHECK: arith.andi
// CHECK: arith.uitofp
func.func @w4a16(%A: memref<3x256xf16>, %Wq: memref<16x128xi8>, %S: memref<16x2xf16>,
                 %Z: memref<16x2xf16>, %C: memref<3x16xf16>) {
  ext.compute [#ext.axis<"m", spatial, 3>, #ext.axis<"n", spatial, 16>, #ext.axis<"k", reduce, 256>]
      ins(%A, %Wq, %S, %Z : memref<3x256xf16>, memref<16x128xi8>, memref<16x2xf16>, memref<16x2xf16>)
      outs(%C : memref<3x16xf16>)
      maps [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k floordiv 2)>,
            affine_map<(m, n, k) -> (n, k floordiv 128)>, affine_map<(m, n, k) -> (n, k floordiv 128)>,
            affine_map<(m, n, k) -> (m, n)>]
      combiner(sum) {
  ^bb0(%a: f16, %q: i8, %s: f16, %z: f16):
    %k = ext.index "k" : index
    %c2 = arith.constant 2 : index
    %odd = arith.remui %k, %c2 : index
    %c4 = arith.constant 4 : index
    %amount = arith.muli %odd, %c4 : index
    %amount8 = arith.index_cast %amount : index to i8
    %shifted = arith.shrui %q, %amount8 : i8
    %c15 = arith.constant 15 : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %w = arith.uitofp %nibble : i8 to f16
    %centered = arith.subf %w, %z : f16
    %scaled = arith.mulf %centered, %s : f16
    %p = arith.mulf %a, %scaled : f16
    ext.yield %p : f16
  }
  return
}

// -----

// int4 elements (one per byte in memory) and mod accesses.
// CHECK-LABEL: func @int4_elements
// CHECK: memref<8x4xi4>
// CHECK: arith.extsi %{{.*}} : i4 to i32
func.func @int4_elements(%W: memref<8x4xi4>, %Y: memref<8x8xi32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 8>]
      ins(%W : memref<8x4xi4>) outs(%Y : memref<8x8xi32>)
      maps [affine_map<(i, j) -> (i, j mod 4)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%w: i4):
    %e = arith.extsi %w : i4 to i32
    ext.yield %e : i32
  }
  return
}

// -----

// FP8 E4M3 bits to f16, and an f8 element type.
// CHECK-LABEL: func @fp8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f16
// CHECK: memref<4xf8E5M2>
func.func @fp8(%Q: memref<4xi8>, %Y: memref<4xf16>, %E: memref<4xf8E5M2>, %Z: memref<4xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%Q : memref<4xi8>) outs(%Y : memref<4xf16>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%q: i8):
    %f8 = arith.bitcast %q : i8 to f8E4M3FN
    %h = arith.extf %f8 : f8E4M3FN to f16
    ext.yield %h : f16
  }
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%E : memref<4xf8E5M2>) outs(%Z : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%e: f8E5M2):
    %f = arith.extf %e : f8E5M2 to f32
    ext.yield %f : f32
  }
  return
}
