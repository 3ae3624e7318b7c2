// An error shows its message and location, not a dump of the op in generic
// form after it, unless --mlir-print-op-on-diagnostic asks for one.
// RUN: not ext-opt %s 2>&1 | FileCheck %s
// RUN: not ext-opt %s --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not ext-translate --mlir-to-llvmir %s 2>&1 | FileCheck %s
// RUN: not ext-translate --mlir-to-llvmir %s --mlir-print-op-on-diagnostic=true 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not ext-run %s 2>&1 | FileCheck %s
// RUN: not ext-run %s --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=DUMP
// CHECK: quiet-diagnostics.mlir:[[# @LINE + 5]]:3: error: 'func.return' op has 0 operands, but enclosing function (@main) returns 1
// CHECK-NOT: see current operation
// CHECK-NOT: "func.return"
// DUMP: note: see current operation: "func.return"() : () -> ()
func.func @main() -> i32 {
  func.return
}
