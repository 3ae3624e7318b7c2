// ptxas accepts the PTX built for chips after sm_90 (ptx-later-chips.mlir).
// REQUIRES: ptxas
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_100" | ext-translate --ext-to-ptx -o %t.100.ptx
// RUN: %ptxas -arch=sm_100 %t.100.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_120" | ext-translate --ext-to-ptx -o %t.120.ptx
// RUN: %ptxas -arch=sm_120 %t.120.ptx -o /dev/null
