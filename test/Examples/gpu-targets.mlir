// Every GPU example compiles through ext-gpu-pipeline to PTX that ptxas
// accepts for sm_80 and sm_90; skipped where CUDA's ptxas is absent.
// REQUIRES: ptxas

// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.gemm80.ptx
// RUN: %ptxas -arch=sm_80 %t.gemm80.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.gemm90.ptx
// RUN: %ptxas -arch=sm_90 %t.gemm90.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.h80.ptx
// RUN: %ptxas -arch=sm_80 %t.h80.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.h90.ptx
// RUN: %ptxas -arch=sm_90 %t.h90.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemv.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.v80.ptx
// RUN: %ptxas -arch=sm_80 %t.v80.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemv.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.v90.ptx
// RUN: %ptxas -arch=sm_90 %t.v90.ptx -o /dev/null
// The softmax is one kernel (row max and row sum computed in it), one
// gpu.module.
// RUN: ext-opt %ext_src/examples/kernels/softmax.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" -o %t.softmax.mlir
// RUN: ext-translate %t.softmax.mlir --ext-to-ptx -o %t.s0.ptx
// RUN: grep -c '^.visible .entry' %t.s0.ptx | FileCheck %s --check-prefix=ONE
// RUN: %ptxas -arch=sm_90 %t.s0.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/softmax.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" -o %t.softmax80.mlir
// RUN: ext-translate %t.softmax80.mlir --ext-to-ptx --ext-gpu-module=softmax_kernel -o %t.s80.ptx
// RUN: %ptxas -arch=sm_80 %t.s80.ptx -o /dev/null
// The padded convolution: one kernel, its guarded reads under branches.
// RUN: ext-opt %ext_src/examples/kernels/conv2d_padded.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.conv90.ptx
// RUN: grep -c '^.visible .entry' %t.conv90.ptx | FileCheck %s --check-prefix=ONE
// RUN: %ptxas -arch=sm_90 %t.conv90.ptx -o /dev/null

// ONE: {{^}}1{{$}}
