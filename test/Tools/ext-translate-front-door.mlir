// ext-translate scans its input for text the installed parser crashes on
// before parsing, as ext-opt does: an error at the construct, no crash.
// RUN: split-file %s %t
// RUN: not ext-translate --mlir-to-llvmir %t/hazard.mlir 2>&1 | FileCheck %s --check-prefix=HAZARD --implicit-check-not="Stack dump" --implicit-check-not=PLEASE
// RUN: not ext-translate --ext-to-ptx %t/hazard.mlir 2>&1 | FileCheck %s --check-prefix=HAZARD --implicit-check-not="Stack dump"
// HAZARD: hazard.mlir:1:32: error: a dense array of 'index' elements is invalid
// Each chunk of a split input is scanned.
// RUN: not ext-translate --mlir-to-llvmir --split-input-file %t/split.mlir 2>&1 | FileCheck %s --check-prefix=SPLIT --implicit-check-not="Stack dump"
// SPLIT: split.mlir:4 offset :2:32: error: a dense array of 'index' elements is invalid
// Clean input translates.
// RUN: ext-translate --mlir-to-llvmir %t/clean.mlir | FileCheck %s --check-prefix=CLEAN
// CLEAN: define void @f()
// --verify-diagnostics sees the scan's error like any other.
// RUN: ext-translate --mlir-to-llvmir --verify-diagnostics %t/expected.mlir

// --help shows the translations and ext's options, not LLVM's; an unknown
// translation is an error.
// RUN: ext-translate --help | FileCheck %s --check-prefix=HELP
// RUN: ext-translate --help | sed -n 100p | FileCheck %s --allow-empty --check-prefix=SHORT
// HELP-DAG: --ext-to-ptx
// HELP-DAG: --ext-to-hsaco
// HELP-DAG: --mlir-to-llvmir
// HELP-DAG: --ext-output-dir=<DIR>
// HELP-DAG: --ext-gpu-module
// HELP-NOT: --amdgpu-
// SHORT-NOT: {{.}}

//--- hazard.mlir
func.func @f() attributes {a = array<index: 1>} {
  return
}

//--- split.mlir
llvm.func @f() {
  llvm.return
}
// -----
func.func @g() attributes {a = array<index: 1>} {
  return
}

//--- clean.mlir
llvm.func @f() {
  llvm.return
}

//--- expected.mlir
// expected-error @below {{a dense array of 'index' elements is invalid}}
func.func @f() attributes {a = array<index: 1>} {
  return
}
