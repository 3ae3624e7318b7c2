// REQUIRES: ptxas
// The emulator's warp matrix tests are ordinary kernels: they go to PTX that
// ptxas accepts. convert-nvgpu-to-nvvm runs after ext-gpu-pipeline here (a
// no-op once the pipeline runs it itself).
// RUN: ext-opt %S/../../Emulator/gemm-ldmatrix-mma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-opt --pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts))' | ext-translate --ext-to-ptx -o %t.gemm.ptx
// RUN: FileCheck %s --check-prefix=GEMM < %t.gemm.ptx
// RUN: %ptxas -arch=sm_80 %t.gemm.ptx -o %t.gemm.cubin
// RUN: ext-opt %S/../../Emulator/ldmatrix.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-opt --pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts))' | ext-translate --ext-to-ptx -o %t.ldmatrix.ptx
// RUN: FileCheck %s --check-prefix=LDMATRIX < %t.ldmatrix.ptx
// RUN: %ptxas -arch=sm_90 %t.ldmatrix.ptx -o %t.ldmatrix.cubin
// RUN: ext-opt %S/../../Emulator/mma-sync-m16n8k8-tf32.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-opt --pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts))' | ext-translate --ext-to-ptx -o %t.tf32.ptx
// RUN: FileCheck %s --check-prefix=TF32 < %t.tf32.ptx
// RUN: %ptxas -arch=sm_80 %t.tf32.ptx -o %t.tf32.cubin
// RUN: ext-opt %S/../../Emulator/mma-sync-m16n8k16-f16-f16acc.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-opt --pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts))' | ext-translate --ext-to-ptx -o %t.f16acc.ptx
// RUN: FileCheck %s --check-prefix=F16ACC < %t.f16acc.ptx
// RUN: %ptxas -arch=sm_80 %t.f16acc.ptx -o %t.f16acc.cubin

// GEMM: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// GEMM: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// GEMM-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// LDMATRIX: ldmatrix.sync.aligned.m8n8.x1.shared.b16
// LDMATRIX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// LDMATRIX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LDMATRIX: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16
// LDMATRIX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// LDMATRIX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16

// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// F16ACC: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
