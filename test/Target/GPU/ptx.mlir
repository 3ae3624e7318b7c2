// REQUIRES: ptxas
// The three kernels through ext-gpu-pipeline and --ext-to-ptx, assembled by
// CUDA's ptxas for sm_80 and for sm_90 (each PTX made for its own chip).
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.matmul80.ptx
// RUN: %ptxas -arch=sm_80 %t.matmul80.ptx -o %t.matmul80.cubin
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.matmul90.ptx
// RUN: %ptxas -arch=sm_90 %t.matmul90.ptx -o %t.matmul90.cubin
// RUN: ext-opt %S/../../GPU/Inputs/row-sum.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.rowsum80.ptx
// RUN: %ptxas -arch=sm_80 %t.rowsum80.ptx -o %t.rowsum80.cubin
// RUN: ext-opt %S/../../GPU/Inputs/row-sum.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.rowsum90.ptx
// RUN: %ptxas -arch=sm_90 %t.rowsum90.ptx -o %t.rowsum90.cubin
// RUN: ext-opt %S/../../GPU/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.f16-80.ptx
// RUN: %ptxas -arch=sm_80 %t.f16-80.ptx -o %t.f16-80.cubin
// RUN: ext-opt %S/../../GPU/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.f16-90.ptx
// RUN: %ptxas -arch=sm_90 %t.f16-90.ptx -o %t.f16-90.cubin
// ptxas does reject what it should: PTX for sm_90 is not sm_80 code.
// RUN: not %ptxas -arch=sm_80 %t.matmul90.ptx -o %t.bad.cubin
