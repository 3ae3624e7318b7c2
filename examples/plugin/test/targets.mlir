// The plugin's decomposition through ext's GPU pipeline to PTX (assembled by
// ptxas for sm_90 where CUDA's ptxas is present, see targets-ptxas.mlir) and
// to an HSACO that holds the kernel symbol.
// RUN: ext-opt %S/Inputs/serpentine-gemm.mlir --load-dialect-plugin=%plugin --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: ext-opt %S/Inputs/serpentine-gemm.mlir --load-dialect-plugin=%plugin --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.hsaco
// RUN: llvm-readelf --symbols %t.hsaco | FileCheck %s --check-prefix=HSACO

// PTX: .visible .entry gemm_kernel
// HSACO: FUNC GLOBAL PROTECTED {{.*}} gemm_kernel{{$}}
