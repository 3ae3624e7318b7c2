// ptxas accepts the PTX of a kernel with the plugin's decomposition for sm_90.
// REQUIRES: ptxas
// RUN: ext-opt %S/Inputs/serpentine-gemm.mlir --load-dialect-plugin=%plugin --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
