// ext-opt lists ext's passes and pipelines next to upstream's.
// RUN: ext-opt --help | FileCheck %s
// CHECK-DAG: --ext-cpu-pipeline
// CHECK-DAG: --ext-lower-to-loops
// CHECK-DAG: --convert-gpu-to-nvvm
// CHECK-DAG: --load-pass-plugin
// CHECK-DAG: --load-dialect-plugin
