// gemm_f32.mlir stages its 128x128 output tile: 64 KB of shared memory per
// block with reuse (the k-loop's 3 stages of A and B tiles inside the
// staging tile), 88 KB without.
// REQUIRES: ptxas

// sm_90: above the static 48 KB, so dynamic shared memory, which ptxas
// accepts (gpu.dynamic_shared_memory declared as the extern array that is
// the dynamic region, after any static variable: ext-gpu-align-dynamic-
// shared-memory) and the launch sizes.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" -o %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.sm90.mlir
// RUN: ext-translate %t.sm90.mlir --ext-to-ptx -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o /dev/null
// LAUNCH: gpu.launch_func @gemm_kernel::@gemm_kernel {{.*}} dynamic_shared_memory_size %{{.*}}
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-NOT: .shared .align {{[0-9]+}} .b8 {{.*}}[{{[0-9]+}}]

// The CPU emulator runs the dynamic-shared-memory kernel the same way.
// RUN: ext-run --chip=sm_90 %ext_src/examples/kernels/gemm_f32.mlir 2>/dev/null | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --chip=sm_90 --racecheck %ext_src/examples/kernels/gemm_f32.mlir 2>/dev/null | FileCheck %s --check-prefix=EXACT
// EXACT: [0]

// gfx942 has 64 KB of LDS per block: the packed 64 KB fit, the unpacked
// 88 KB are refused with the limit named.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" -o /dev/null
// RUN: not ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942 reuse-shared-memory=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX942
// GFX942: error: the kernel in @gemm uses 90112 bytes (88.0 KB) of shared memory per block; gfx942 allows at most 65536 bytes (64.0 KB) of LDS per block

// The host opts the kernel in to more than 48 KB before launching it (the
// fake driver refuses the launch otherwise).
// RUN: env EXT_CUDA_DRIVER=%fake_cuda ext-run --target=cuda --chip=sm_90 %ext_src/examples/kernels/gemm_f32.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTIN
// OPTIN: fake-cuda: max dynamic shared memory 65536 bytes
// OPTIN-NOT: error
