// RUN: ext-opt %s --split-input-file --ext-gpu-fast-math | FileCheck %s

// A launch marked ext.fast_math (a schedule's fast_math): f32 multiplies,
// adds and subtracts are `contract`; exp(a - b) is exp2(fma(a, log2 e,
// b * -log2 e)) with the exp2 `afn`; a / b is a * (1 / b) with the
// reciprocal `afn`; rsqrt and tanh are `afn`. The mark is dropped.
// CHECK-LABEL: func.func @fast
// CHECK:         gpu.launch
// CHECK:         arith.subf %arg0, %arg1 fastmath<contract> : f32
// CHECK-DAG:     %[[L:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG:     %[[NL:.*]] = arith.constant -1.44269502 : f32
// CHECK:         %[[BL:.*]] = arith.mulf %arg1, %[[NL]] fastmath<contract> : f32
// CHECK:         %[[ARG:.*]] = math.fma %arg0, %[[L]], %[[BL]] : f32
// CHECK:         %[[E:.*]] = math.exp2 %[[ARG]] fastmath<afn> : f32
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[R:.*]] = arith.divf %[[ONE]], %arg2 fastmath<afn> : f32
// CHECK:         arith.mulf %[[E]], %[[R]] fastmath<contract> : f32
// CHECK:         math.rsqrt %{{.*}} fastmath<afn> : f32
// CHECK:         math.tanh %{{.*}} fastmath<afn> : f32
// CHECK:         arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<4xf32>
// CHECK-NOT:     ext.fast_math
// CHECK-NOT:     math.exp %
func.func @fast(%a: f32, %b: f32, %s: f32, %v: vector<4xf32>, %out: memref<4xf32>, %vout: memref<vector<4xf32>>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %y0 = arith.divf %e, %s : f32
    %q = math.rsqrt %s : f32
    %h = math.tanh %q : f32
    %vv = arith.mulf %v, %v : vector<4xf32>
    memref.store %y0, %out[%c0] : memref<4xf32>
    memref.store %h, %out[%c1] : memref<4xf32>
    memref.store %vv, %vout[] : memref<vector<4xf32>>
    gpu.terminator
  } {ext.fast_math}
  return
}

// -----

// Without the mark (fast_math = false, or plain gpu IR) nothing changes; an
// f16 multiply is not touched either way.
// CHECK-LABEL: func.func @precise
// CHECK:         %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK:         math.exp %[[D]] : f32
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: func.func @half
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : f16
func.func @precise(%a: f32, %b: f32, %out: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %b : f32
    memref.store %q, %out[] : memref<f32>
    gpu.terminator
  }
  return
}
func.func @half(%a: f16, %out: memref<f16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    %m = arith.mulf %a, %a : f16
    memref.store %m, %out[] : memref<f16>
    gpu.terminator
  } {ext.fast_math}
  return
}

// -----

// ext.no_contract (an online softmax's launch): the approximations without
// FMA contraction; exp's argument is one multiply by log2 e.
// CHECK-LABEL: func.func @no_contract
// CHECK:         %[[D:.*]] = arith.subf %arg0, %arg1 : f32
// CHECK:         %[[X:.*]] = arith.mulf %[[D]], %{{.*}} : f32
// CHECK:         math.exp2 %[[X]] fastmath<afn> : f32
// CHECK-NOT:     math.fma
// CHECK-NOT:     ext.no_contract
func.func @no_contract(%a: f32, %b: f32, %out: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    memref.store %e, %out[] : memref<f32>
    gpu.terminator
  } {ext.fast_math, ext.no_contract}
  return
}
