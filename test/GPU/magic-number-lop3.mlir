// RUN: ext-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(ext-gpu-magic-number-lop3))' | FileCheck %s

// (w & M) | 0x64006400, the mask disjoint from the magic word: one lop3.b32
// ((a & b) | c: 0xEA) with both as immediates; the AND and the OR are gone.
// CHECK-LABEL: llvm.func @pair
// CHECK:         %[[R:.*]] = llvm.inline_asm "lop3.b32 $0, $1, 983055, 1677747200, 0xEA;", "=r,r" %arg0 : (i32) -> i32
// CHECK-NOT:     llvm.and
// CHECK-NOT:     llvm.or
// CHECK:         llvm.return %[[R]]
gpu.module @m {
  llvm.func @pair(%w: i32) -> i32 {
    %mask = llvm.mlir.constant(983055 : i32) : i32
    %magic = llvm.mlir.constant(1677747200 : i32) : i32
    %a = llvm.and %w, %mask : i32
    %r = llvm.or %magic, %a : i32
    llvm.return %r : i32
  }
}

// -----

// Left alone: bf16's magic word with a mask that overlaps it, another
// constant, and an AND with a second use.
// CHECK-LABEL: llvm.func @kept
// CHECK-NOT:     llvm.inline_asm
// CHECK-COUNT-3: llvm.or
gpu.module @k {
  llvm.func @kept(%w: i32) -> (i32) {
    %overlap = llvm.mlir.constant(1124090624 : i32) : i32
    %magic = llvm.mlir.constant(1124090624 : i32) : i32
    %m = llvm.mlir.constant(983055 : i32) : i32
    %other = llvm.mlir.constant(1677747201 : i32) : i32
    %a = llvm.and %w, %overlap : i32
    %r1 = llvm.or %a, %magic : i32
    %b = llvm.and %w, %m : i32
    %r2 = llvm.or %b, %other : i32
    %c = llvm.and %w, %m : i32
    %r3 = llvm.or %c, %magic : i32
    %s1 = llvm.add %r1, %r2 : i32
    %s2 = llvm.add %s1, %r3 : i32
    %s3 = llvm.add %s2, %c : i32
    llvm.return %s3 : i32
  }
}
