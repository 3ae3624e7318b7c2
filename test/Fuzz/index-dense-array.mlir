// RUN: not ext-opt %s 2>&1 | FileCheck %s
// RUN: not ext-opt < %s 2>&1 | FileCheck %s
// RUN: not ext-run %s 2>&1 | FileCheck %s
// Fuzzer finding (2026-12-03): the installed MLIR parser dereferences null on
// a dense array of `index` elements (llvm/llvm-project#179045, fixed after
// LLVM 22): a SEGV in ext-opt on a mistyped static_strides. ext's tools scan
// the text first and report it at the `array` keyword
// (ext/Support/ParserHazards.h); the alias form is in ParserHazardsTest.

// CHECK: :[[@LINE+4]]:94: error: a dense array of 'index' elements is invalid (index has no fixed bit width); rejected before parsing because the installed MLIR parser crashes on it (llvm/llvm-project#179045)
// CHECK-NOT: Stack dump
func.func @strides(%m: memref<16x8xi32>) {
  %c0 = arith.constant 0 : index
  %s = "memref.subview"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_strides = array<index: 1, 1>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>}> : (memref<16x8xi32>) -> memref<4x4xi32, strided<[8, 1]>>
  return
}
