// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-from-linalg | FileCheck %s

// A fill of the sum's identity just before the matmul is dropped: the
// compute overwrites C.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.
// CHECK: ext.compute [#ext.axis<"d0", spatial, 64>, #ext.axis<"d1", spatial, 48>, #ext.axis<"d2", reduce, 32>]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x48xf32>) outs(%{{.*}} : memref<64x48xf32>)
// CHECK-SAME: combiner(sum) attributes {name = "matmul_0"}
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: ext.yield %[[P]] : f32
// CHECK-NOT: ext.compute
// CHECK: return
func.func @matmul(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<64x48xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x48xf32>) outs(%C : memref<64x48xf32>)
  return
}

// -----

// No fill: linalg adds to C's contents, so the product goes into a fresh
// buffer and an element-wise compute adds it to C in place. Dynamic sizes
// become `?` extents; the f16 inputs are widened in the body.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[D:.*]] = memref.dim %[[C:.*]], %c1
// CHECK: %[[T:.*]] = memref.alloc(%[[D]]) : memref<4x?x16xf32>
// CHECK: ext.compute [#ext.axis<"d0", spatial, 4>, #ext.axis<"d1", spatial, ?>, #ext.axis<"d2", spatial, 16>, #ext.axis<"d3", reduce, 8>]
// CHECK-SAME: outs(%[[T]] : memref<4x?x16xf32>)
// CHECK-SAME: combiner(sum) attributes {name = "batch_matmul_0"}
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: ext.compute [#ext.axis<"d0", spatial, 4>, #ext.axis<"d1", spatial, ?>, #ext.axis<"d2", spatial, 16>]
// CHECK-SAME: ins(%[[C]], %[[T]] : {{.*}}) outs(%[[C]] : memref<4x?x16xf32>)
// CHECK-SAME: {name = "batch_matmul_acc_1"}
// CHECK: arith.addf
// CHECK: memref.dealloc %[[T]]
func.func @accumulate(%A: memref<4x?x8xf16>, %B: memref<4x8x16xf16>, %C: memref<4x?x16xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<4x?x8xf16>, memref<4x8x16xf16>) outs(%C : memref<4x?x16xf32>)
  return
}

// -----

// Tensors are bufferized first; a fill of -inf is max's identity.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[X:.*]]: memref<16x100xf32>) -> memref<16xf32>
// CHECK: %[[R:.*]] = memref.alloc
// CHECK-NEXT: ext.compute [#ext.axis<"d0", spatial, 16>, #ext.axis<"d1", reduce, 100>] ins(%[[X]] : memref<16x100xf32>) outs(%[[R]] : memref<16xf32>)
// CHECK-SAME: combiner(max) attributes {name = "reduce_0"}
// CHECK: return %[[R]]
func.func @row_max(%X: tensor<16x100xf32>) -> tensor<16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.reduce ins(%X : tensor<16x100xf32>) outs(%f : tensor<16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  return %r : tensor<16xf32>
}

// -----

// linalg.softmax is decomposed (its max fill is NaN, maxnumf's identity),
// each value gets its own buffer, and the four ops become four computes.
// CHECK-LABEL: func.func @softmax
// CHECK: combiner(max) attributes {name = "generic_0"}
// CHECK: {name = "generic_1"}
// CHECK: math.exp %
// CHECK: combiner(sum) attributes {name = "generic_2"}
// CHECK: {name = "generic_3"}
// CHECK: arith.divf
// CHECK-NOT: linalg.
func.func @softmax(%X: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %s = linalg.softmax dimension(1) ins(%X : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %s : tensor<8x64xf32>
}

// -----

// Two outputs combined together (argmax): a custom reducer; the new values
// are the element and its index, the identities the fills' constants.
// CHECK-LABEL: func.func @argmax
// CHECK-NOT: linalg.
// CHECK: ext.compute [#ext.axis<"d0", spatial, 16>, #ext.axis<"d1", reduce, 100>]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : memref<16xf32>, memref<16xi32>)
// CHECK-SAME: combiner(custom) identity [0xFF800000 : f32, 0 : i32]
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[K:.*]] = ext.index "d1" : index
// CHECK-NEXT: %[[KI:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT: ext.yield %[[X]], %[[KI]] : f32, i32
// CHECK-NEXT: } reducer {
// CHECK-NEXT: ^bb0(%[[AV:.*]]: f32, %[[AI:.*]]: i32, %[[NV:.*]]: f32, %[[NI:.*]]: i32):
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[NV]], %[[AV]] : f32
// CHECK-NEXT: arith.select %[[GT]], %[[NV]], %[[AV]] : f32
// CHECK-NEXT: arith.select %[[GT]], %[[NI]], %[[AI]] : i32
func.func @argmax(%X: memref<16x100xf32>, %V: memref<16xf32>, %I: memref<16xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  linalg.fill ins(%ninf : f32) outs(%V : memref<16xf32>)
  linalg.fill ins(%z : i32) outs(%I : memref<16xi32>)
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<16x100xf32>) outs(%V, %I : memref<16xf32>, memref<16xi32>) {
  ^bb0(%x: f32, %v: f32, %i: i32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %gt = arith.cmpf ogt, %x, %v : f32
    %nv = arith.select %gt, %x, %v : f32
    %ni = arith.select %gt, %ki, %i : i32
    linalg.yield %nv, %ni : f32, i32
  }
  return
}

// -----

// An element-wise op that reads its output reads it as an input, in place;
// a constant scalar input becomes a constant in the body.
// CHECK-LABEL: func.func @scale_in_place
// CHECK: ext.compute [#ext.axis<"d0", spatial, 32>] ins(%[[Y:.*]] : memref<32xf32>) outs(%[[Y]] : memref<32xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.constant 2.5
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[S]]
// CHECK-NEXT: ext.yield %[[P]]
func.func @scale_in_place(%Y: memref<32xf32>) {
  %s = arith.constant 2.5 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%s : f32) outs(%Y : memref<32xf32>) {
  ^bb0(%c: f32, %y: f32):
    %p = arith.mulf %y, %c : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// What ext.compute cannot say stays linalg, with a remark saying why.
func.func @stays(%X: memref<8x8xf32>, %Y: memref<8xf32>, %s: f32, %Z: memref<8x8xf32>) {
  // expected-remark @below {{stays linalg: output #0's map (d0, d1) -> (d0) is not a permutation of the 2 parallel loop(s) of 2}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%X : memref<8x8xf32>) outs(%Y : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  // expected-remark @below {{stays linalg: input #1 is a scalar that is not a constant}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%X, %s : memref<8x8xf32>, f32) outs(%Z : memref<8x8xf32>) {
  ^bb0(%x: f32, %c: f32, %z: f32):
    %p = arith.mulf %x, %c : f32
    linalg.yield %p : f32
  }
  // expected-remark @below {{stays linalg: its reduction is not `out <op> value` with a combining op ext knows}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<8x8xf32>) outs(%Y : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %y, %x : f32
    linalg.yield %d : f32
  }
  %V = memref.alloc() : memref<8xf32>
  %N = memref.alloc() : memref<8xi32>
  %zf = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  linalg.fill ins(%zf : f32) outs(%V : memref<8xf32>)
  linalg.fill ins(%zi : i32) outs(%N : memref<8xi32>)
  // expected-remark @below {{stays linalg: its multi-output reduction combines with 'arith.addf'}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<8x8xf32>) outs(%V, %N : memref<8xf32>, memref<8xi32>) {
  ^bb0(%x: f32, %v: f32, %n: i32):
    %xi = arith.fptosi %x : f32 to i32
    %sum = arith.addf %v, %x : f32
    %c = arith.addi %n, %xi : i32
    %w = arith.maximumf %sum, %v : f32
    linalg.yield %w, %c : f32, i32
  }
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    // expected-remark @below {{stays linalg: it is inside a GPU kernel}}
    linalg.copy ins(%X : memref<8x8xf32>) outs(%Z : memref<8x8xf32>)
    gpu.terminator
  }
  return
}
