// The README's first MLIR snippet is a complete file: it parses, becomes PTX
// and HSACO, and runs with generated inputs, as the commands under it say.
// RUN: awk '/^```mlir/ { inside = 1; next } /^```/ { if (inside) exit } inside' %ext_src/README.md > %t.mlir
// RUN: ext-opt %t.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: ext-opt %t.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.hsaco
// RUN: ext-run --entry=gemm --random-inputs=1 --print-outputs %t.mlir | FileCheck %s --check-prefix=OUT
// PTX: .visible .entry gemm_kernel(
// OUT: %arg2 = memref<200x130xf32> {{\[\[}}{{-?[0-9.]+}}, {{-?[0-9.]+}}, {{-?[0-9.]+}}, ..., {{-?[0-9.]+}}, {{-?[0-9.]+}}, {{-?[0-9.]+}}],
