// Chips after sm_90 take LLVM's own PTX version: the +ptx80 that sm_90's
// TMA needs cannot name them, and LLVM aborted the process ("PTX version 8.0
// does not support target", issue 59). The f16 GEMM example builds for each.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_100" | ext-translate --ext-to-ptx -o %t.100.ptx
// RUN: FileCheck %s --check-prefix=SM100 < %t.100.ptx
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_120" | ext-translate --ext-to-ptx -o %t.120.ptx
// RUN: FileCheck %s --check-prefix=SM120 < %t.120.ptx
// sm_90 keeps PTX 8.0.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=SM90
// SM100: .version
// SM100: .target sm_100
// SM100: .entry
// SM120: .target sm_120
// SM120: .entry
// SM90: .version 8.0
// SM90: .target sm_90
