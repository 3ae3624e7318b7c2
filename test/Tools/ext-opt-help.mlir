// ext-opt's --help lists ext's passes and pipelines, each under its name,
// and the options a user of the tool needs, not LLVM's thousand; every pass
// stays in --list-passes and hidden options still work.
// RUN: ext-opt --help | FileCheck %s
// RUN: ext-opt --help | sed -n 200p | FileCheck %s --allow-empty --check-prefix=SHORT
// RUN: ext-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: ext-opt %s --mlir-print-ir-module-scope --mlir-disable-threading | FileCheck %s --check-prefix=HIDDEN
// CHECK: ext's pipelines:
// CHECK-DAG: --ext-cpu-pipeline {{.*}}Lower ext.compute
// CHECK-DAG: --ext-gpu-host-pipeline
// CHECK-DAG: --ext-gpu-pipeline {{.*}}Outline gpu kernels
// CHECK-DAG: --ext-schedule-to-gpu
// CHECK: ext's passes:
// CHECK-DAG: --ext-alloc-shared-to-workgroup
// CHECK-DAG: --ext-apply-schedule
// CHECK-DAG: --ext-compute-to-loops
// CHECK-DAG: --ext-gpu-check-resource-limits
// CHECK-DAG: --ext-gpu-check-target-support
// CHECK-DAG: --ext-gpu-promote-workgroup-allocs
// CHECK-DAG: --ext-gpu-report-host-computes
// CHECK-DAG: --ext-gpu-stage-kernel-operands
// CHECK-DAG: --ext-gpu-to-cpu-emulation
// CHECK-DAG: --ext-kernel-to-gpu
// CHECK-DAG: --ext-gpu-reuse-shared-memory
// CHECK-DAG: --ext-tile-ops-to-threads
// CHECK-DAG: --list-passes
// CHECK-DAG: --load-pass-plugin
// CHECK-DAG: --load-dialect-plugin
// CHECK-DAG: --pass-pipeline
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: -o <filename>
// CHECK-NOT: --amdgpu-
// CHECK-NOT: --convert-gpu-to-nvvm
// SHORT-NOT: {{.}}
// LIST-DAG: --convert-gpu-to-nvvm
// LIST-DAG: --ext-compute-to-loops
// The old names are gone.
// RUN: ext-opt --help | FileCheck %s --check-prefix=OLD
// OLD-NOT: --ext-lower-
// HIDDEN: func.func @f
func.func @f() {
  return
}
