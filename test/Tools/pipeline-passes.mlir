// The pipelines, built in C++ from the passes' create functions, run these
// passes in this order (the same as the pass-pipeline text they replaced).
// RUN: ext-opt %s --ext-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: ext-opt %s --ext-gpu-host-pipeline="target=rocdl chip=gfx942" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST

// CPU: builtin.module(
// CPU-NEXT: ext-apply-schedule{{.*}},
// CPU-NEXT: ext-kernel-to-gpu{{.*}},
// CPU-NEXT: ext-tile-ops-to-threads{{.*}},
// CPU-NEXT: ext-alloc-shared-to-workgroup,
// CPU-NEXT: ext-compute-to-loops{reject-tile-level=true},
// CPU-NEXT: canonicalize{{.*}},
// CPU-NEXT: cse,
// CPU-NEXT: gpu-launch-sink-index-computations,
// CPU-NEXT: ext-reuse-shared-memory{{.*}},
// CPU-NEXT: convert-linalg-to-loops,
// CPU-NEXT: canonicalize{{.*}},
// CPU-NEXT: lower-affine,
// CPU-NEXT: ext-subgroup-mma-to-lanes,
// CPU-NEXT: gpu-kernel-outlining{{.*}},
// CPU-NEXT: ext-gpu-to-cpu-emulation{{.*}},
// CPU-NEXT: convert-scf-to-cf{{.*}},
// CPU-NEXT: expand-strided-metadata,
// CPU-NEXT: lower-affine,
// CPU-NEXT: convert-math-to-llvm{{.*}},
// CPU-NEXT: convert-math-to-libm,
// CPU-NEXT: convert-vector-to-llvm{{.*}},
// CPU-NEXT: finalize-memref-to-llvm{{.*}},
// CPU-NEXT: convert-arith-to-llvm{{.*}},
// CPU-NEXT: convert-index-to-llvm{{.*}},
// CPU-NEXT: convert-func-to-llvm{{.*}},
// CPU-NEXT: convert-cf-to-llvm{{.*}},
// CPU-NEXT: reconcile-unrealized-casts
// CPU-NEXT: )

// NVVM: builtin.module(
// NVVM-NEXT: ext-gpu-report-host-computes,
// NVVM-NEXT: ext-apply-schedule{chip=sm_90 report=false sms=0 weaken-async-wait=false},
// NVVM-NEXT: ext-kernel-to-gpu{{.*}},
// NVVM-NEXT: ext-tile-ops-to-threads{chip=sm_90 {{.*}}},
// NVVM-NEXT: ext-alloc-shared-to-workgroup,
// NVVM-NEXT: ext-compute-to-loops{{.*}},
// NVVM-NEXT: canonicalize{{.*}},
// NVVM-NEXT: cse,
// NVVM-NEXT: gpu-launch-sink-index-computations,
// NVVM-NEXT: ext-reuse-shared-memory{{.*}},
// NVVM-NEXT: ext-gpu-check-target-support{chip=sm_90},
// NVVM-NEXT: ext-gpu-dynamic-shared-memory{chip=sm_90},
// NVVM-NEXT: ext-gpu-check-resource-limits{chip=sm_90},
// NVVM-NEXT: gpu-kernel-outlining{{.*}},
// NVVM-NEXT: nvvm-attach-target{O=2 chip=sm_90 {{.*}}},
// NVVM-NEXT: gpu.module(
// NVVM-NEXT: ext-gpu-promote-workgroup-allocs,
// NVVM-NEXT: lower-affine,
// NVVM-NEXT: convert-scf-to-cf{{.*}},
// NVVM-NEXT: expand-strided-metadata,
// NVVM-NEXT: lower-affine,
// NVVM-NEXT: ext-gpu-lower-bf16-mma-sync,
// NVVM-NEXT: convert-nvgpu-to-nvvm,
// NVVM-NEXT: convert-gpu-to-nvvm{{{.*}} has-redux=true {{.*}}},
// NVVM-NEXT: llvm-optimize-for-nvvm-target,
// NVVM-NEXT: convert-nvvm-to-llvm,
// NVVM-NEXT: canonicalize{{.*}},
// NVVM-NEXT: cse,
// NVVM-NEXT: reconcile-unrealized-casts
// NVVM-NEXT: )
// NVVM-NEXT: )

// HOST: builtin.module(
// HOST-NEXT: ext-apply-schedule{{.*}},
// HOST-NEXT: ext-kernel-to-gpu{{.*}},
// HOST-NEXT: ext-tile-ops-to-threads{{.*}},
// HOST-NEXT: ext-alloc-shared-to-workgroup,
// HOST-NEXT: ext-compute-to-loops{{.*}},
// HOST-NEXT: canonicalize{{.*}},
// HOST-NEXT: cse,
// HOST-NEXT: gpu-launch-sink-index-computations,
// HOST-NEXT: ext-reuse-shared-memory{{.*}},
// HOST-NEXT: gpu-kernel-outlining{{.*}},
// HOST-NEXT: ext-gpu-stage-kernel-operands,
// HOST-NEXT: ext-gpu-check-target-support{chip=gfx942},
// HOST-NEXT: ext-gpu-dynamic-shared-memory{chip=gfx942},
// HOST-NEXT: ext-gpu-check-resource-limits{chip=gfx942},
// HOST-NEXT: gpu-kernel-outlining{{.*}},
// HOST-NEXT: rocdl-attach-target{O=2 abi=500 chip=gfx942 {{.*}}},
// HOST-NEXT: gpu.module(
// HOST-NEXT: ext-gpu-promote-workgroup-allocs,
// HOST-NEXT: lower-affine,
// HOST-NEXT: convert-scf-to-cf{{.*}},
// HOST-NEXT: expand-strided-metadata,
// HOST-NEXT: lower-affine,
// HOST-NEXT: convert-amdgpu-to-rocdl{chipset=gfx942},
// HOST-NEXT: convert-gpu-to-rocdl{{{.*}}chipset=gfx942 {{.*}}},
// HOST-NEXT: canonicalize{{.*}},
// HOST-NEXT: cse,
// HOST-NEXT: reconcile-unrealized-casts
// HOST-NEXT: ),
// HOST-NEXT: gpu-module-to-binary{format=isa {{.*}}},
// HOST-NEXT: convert-linalg-to-loops,
// HOST-NEXT: canonicalize{{.*}},
// HOST-NEXT: lower-affine,
// HOST-NEXT: convert-scf-to-cf{{.*}},
// HOST-NEXT: expand-strided-metadata,
// HOST-NEXT: lower-affine,
// HOST-NEXT: convert-math-to-llvm{{.*}},
// HOST-NEXT: convert-math-to-libm,
// HOST-NEXT: gpu-to-llvm{{.*}},
// HOST-NEXT: convert-vector-to-llvm{{.*}},
// HOST-NEXT: finalize-memref-to-llvm{{.*}},
// HOST-NEXT: convert-arith-to-llvm{{.*}},
// HOST-NEXT: convert-index-to-llvm{{.*}},
// HOST-NEXT: convert-func-to-llvm{{.*}},
// HOST-NEXT: convert-cf-to-llvm{{.*}},
// HOST-NEXT: reconcile-unrealized-casts
// HOST-NEXT: )

module {}
