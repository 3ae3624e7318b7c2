// ext-opt lists ext's passes and pipelines next to upstream's, each under
// its name.
// RUN: ext-opt --help | FileCheck %s
// CHECK-DAG: --ext-alloc-shared-to-workgroup
// CHECK-DAG: --ext-apply-schedule
// CHECK-DAG: --ext-compute-to-loops
// CHECK-DAG: --ext-cpu-pipeline
// CHECK-DAG: --ext-gpu-check-target-support
// CHECK-DAG: --ext-gpu-host-pipeline
// CHECK-DAG: --ext-gpu-pipeline
// CHECK-DAG: --ext-gpu-promote-workgroup-allocs
// CHECK-DAG: --ext-gpu-stage-kernel-operands
// CHECK-DAG: --ext-gpu-to-cpu-emulation
// CHECK-DAG: --ext-kernel-to-gpu
// CHECK-DAG: --ext-reuse-shared-memory
// CHECK-DAG: --ext-schedule-to-gpu
// CHECK-DAG: --ext-tile-ops-to-threads
// CHECK-DAG: --convert-gpu-to-nvvm
// CHECK-DAG: --load-pass-plugin
// CHECK-DAG: --load-dialect-plugin
// The old names are gone.
// RUN: ext-opt --help | FileCheck %s --check-prefix=OLD
// OLD-NOT: --ext-lower-
