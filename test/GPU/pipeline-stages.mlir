// Pipelined stages through ext-gpu-pipeline. On sm_80 and sm_90 the staged
// copies become cp.async (8 bytes for A's 100-half rows, 4 for B's 130-half
// rows), one commit per k-step and a wait for all but the
// newest group (stages = 3) before the step's one barrier; convert-nvgpu-to-nvvm
// leaves no nvgpu op. On gfx942 the same pipeline stages through registers:
// no async copy, one barrier in the k-loop and one draining it (the
// unpipelined loop has two per k-step), then the two around the store of the
// output's staging tile.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | FileCheck %s --check-prefix=NVVM --implicit-check-not=nvgpu.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | FileCheck %s --check-prefix=ROCDL --implicit-check-not=nvgpu. --implicit-check-not=cp.async
// NVVM-LABEL: gpu.module @gemm_f16_kernel
// NVVM-COUNT-2: nvvm.cp.async.commit.group
// NVVM:         nvvm.cp.async.wait.group 1
// NVVM:         nvvm.barrier0
// NVVM:         nvvm.cp.async.shared.global {{.*}}, 8, cache = ca
// NVVM:         nvvm.cp.async.commit.group
// NVVM:         nvvm.cp.async.wait.group 0
// ROCDL-LABEL: gpu.module @gemm_f16_kernel
// ROCDL-COUNT-4: rocdl.barrier
// ROCDL-NOT:     rocdl.barrier
