// Every GPU example compiles through ext-gpu-pipeline to an HSACO that holds
// its kernel symbol for gfx90a and gfx942 (no ptxas needed).

// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.g90a.hsaco
// RUN: llvm-readelf --symbols %t.g90a.hsaco | FileCheck %s --check-prefix=GEMM
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.g942.hsaco
// RUN: llvm-readelf --symbols %t.g942.hsaco | FileCheck %s --check-prefix=GEMM
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.h90a.hsaco
// RUN: llvm-readelf --symbols %t.h90a.hsaco | FileCheck %s --check-prefix=F16
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.h942.hsaco
// RUN: llvm-readelf --symbols %t.h942.hsaco | FileCheck %s --check-prefix=F16
// RUN: ext-opt %ext_src/examples/kernels/gemv.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.v90a.hsaco
// RUN: llvm-readelf --symbols %t.v90a.hsaco | FileCheck %s --check-prefix=GEMV
// RUN: ext-opt %ext_src/examples/kernels/gemv.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.v942.hsaco
// RUN: llvm-readelf --symbols %t.v942.hsaco | FileCheck %s --check-prefix=GEMV
// RUN: ext-opt %ext_src/examples/kernels/softmax.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" -o %t.softmax.mlir
// RUN: ext-translate %t.softmax.mlir --ext-to-hsaco --ext-gpu-module=softmax_kernel -o %t.s942.hsaco
// RUN: llvm-readelf --symbols %t.s942.hsaco | FileCheck %s --check-prefix=SOFTMAX
// RUN: ext-opt %ext_src/examples/kernels/softmax.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" -o %t.softmax90a.mlir
// RUN: ext-translate %t.softmax90a.mlir --ext-to-hsaco --ext-gpu-module=softmax_kernel -o %t.s90a.hsaco
// RUN: llvm-readelf --symbols %t.s90a.hsaco | FileCheck %s --check-prefix=SOFTMAX

// RUN: ext-opt %ext_src/examples/kernels/conv2d_padded.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.conv942.hsaco
// RUN: llvm-readelf --symbols %t.conv942.hsaco | FileCheck %s --check-prefix=CONV

// GEMM: FUNC GLOBAL PROTECTED {{.*}} gemm_kernel{{$}}
// GEMM: gemm_kernel.kd
// F16: FUNC GLOBAL PROTECTED {{.*}} gemm_f16_kernel{{$}}
// GEMV: FUNC GLOBAL PROTECTED {{.*}} gemv_kernel{{$}}
// SOFTMAX: FUNC GLOBAL PROTECTED {{.*}} softmax_kernel{{$}}
// SOFTMAX: softmax_kernel.kd
// CONV: FUNC GLOBAL PROTECTED {{.*}} conv2d_padded_kernel{{$}}
