// The tensor-core GEMM examples compile to matrix instructions: the NVIDIA
// one's PTX for sm_80 and sm_90 has ldmatrix and mma.sync m16n8k16 and
// ptxas assembles it without spills; the AMD one's HSACO for gfx90a and
// gfx942 has v_mfma. Skipped where CUDA's ptxas is absent.
// REQUIRES: ptxas

// RUN: for c in 80 90; do \
// RUN:   ext-opt %ext_src/examples/kernels/gemm_f16_mma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" 2>/dev/null | ext-translate --ext-to-ptx -o %t.$c.ptx || exit 1; \
// RUN:   %ptxas -arch=sm_$c -v %t.$c.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS || exit 1; \
// RUN:   FileCheck %s --check-prefix=PTX < %t.$c.ptx || exit 1; done
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// RUN: for c in gfx90a gfx942; do \
// RUN:   ext-opt %ext_src/examples/kernels/gemm_f16_mfma.mlir --ext-gpu-pipeline="target=rocdl chip=$c" 2>/dev/null | ext-translate --ext-to-hsaco -o %t.$c.hsaco || exit 1; \
// RUN:   llvm-objdump -d --mcpu=$c %t.$c.hsaco | FileCheck %s --check-prefix=MFMA || exit 1; done
// MFMA-COUNT-4: v_mfma_f32_32x32x8{{_?}}f16

// bf16 (the example with bf16 inputs; nvgpu.mma.sync for bf16 goes through
// ext-gpu-lower-bf16-mma-sync) and tf32 (m16n8k8).
// RUN: sed 's/f16/bf16/g' %ext_src/examples/kernels/gemm_f16_mma.mlir | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_80" 2>/dev/null | ext-translate --ext-to-ptx -o %t.bf16.ptx
// RUN: %ptxas -arch=sm_80 -v %t.bf16.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// BF16-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: ext-opt %S/Inputs/gemm-tf32-mma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" 2>/dev/null | ext-translate --ext-to-ptx -o %t.tf32.ptx
// RUN: %ptxas -arch=sm_90 -v %t.tf32.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=TF32 < %t.tf32.ptx
// TF32-NOT: ldmatrix
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// sm_90a's warpgroup MMA: one wgmma.mma_async.m64n256k16 per warpgroup and
// k16 step (4 per 64-deep tile), 144 KB of stages, no spills, no local
// memory (the 128 accumulators per thread stay in registers).
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16_wgmma.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.wgmma.ptx
// RUN: %ptxas -arch=sm_90a -v %t.wgmma.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA-PTXAS
// RUN: FileCheck %s --check-prefix=WGMMA < %t.wgmma.ptx
// WGMMA-PTXAS: 0 bytes stack frame, 0 bytes spill stores
// WGMMA: wgmma.fence.sync.aligned
// WGMMA: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA: wgmma.wait_group.sync.aligned 0
// WGMMA-NOT: ld.local

// The 128x256 tile over 2x4 warps: 4x8 mma.sync per warp and k16 step, two
// k16 steps per 32-deep tile; 80 KB of stages is dynamic shared memory.
// Its 128 accumulators per thread stay in registers (no local memory): on
// sm_90 without spills; sm_80's allocator needs all 255 registers and
// spills a few bytes.
// RUN: for c in 80 90; do \
// RUN:   ext-opt %ext_src/examples/kernels/gemm_f16_mma_large.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" 2>/dev/null | ext-translate --ext-to-ptx -o %t.large.$c.ptx || exit 1; \
// RUN:   FileCheck %s --check-prefix=LARGE < %t.large.$c.ptx || exit 1; done
// RUN: %ptxas -arch=sm_90 -v %t.large.90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t.large.80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=ASSEMBLES
// ASSEMBLES: Used {{[0-9]+}} registers
// LARGE: .shared .align 16 .b8 __dynamic_shmem__0
// LARGE: cp.async.ca.shared.global
// LARGE-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// LARGE-NOT: mma.sync
