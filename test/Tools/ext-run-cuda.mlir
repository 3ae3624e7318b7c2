// ext-run --target=cuda without a driver says so and fails; with the fake
// driver (test/Tools/FakeCuda: host memory, a "kernel" that writes 42 into
// the device buffers it is given) the whole path runs: lowering, PTX handed
// to the driver's JIT, staging copies, launch, copy back, per-launch timing.

// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 not ext-run --target=cuda %S/Inputs/gpu-double.mlir 2>&1 | FileCheck %s --check-prefix=NODRIVER --implicit-check-not="Stack dump"
// NODRIVER: ext-run: error: --target=cuda needs an NVIDIA GPU and its driver: the CUDA driver library '{{.*}}missing/libcuda.so.1' could not be loaded

// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_NO_DEVICE=1 not ext-run --target=cuda %S/Inputs/gpu-double.mlir 2>&1 | FileCheck %s --check-prefix=NODEVICE
// NODEVICE: ext-run: error: --target=cuda needs an NVIDIA GPU and its driver: no CUDA device 0 (the driver sees 0)

// Lowering happens before the driver check: --print-lowered works anywhere.
// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 not ext-run --target=cuda --chip=sm_90 --print-lowered %S/Inputs/gpu-double.mlir 2>/dev/null | FileCheck %s --check-prefix=LOWERED
// LOWERED: llvm.call @mgpuMemAlloc
// LOWERED: llvm.call @mgpuMemcpy
// LOWERED: gpu.launch_func @main_kernel::@main_kernel
// LOWERED: llvm.call @mgpuMemcpy
// LOWERED: llvm.call @mgpuMemFree
// LOWERED: gpu.binary @main_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90

// RUN: env EXT_CUDA_DRIVER=%fake_cuda ext-run --target=cuda %S/Inputs/gpu-double.mlir 2>%t.err | FileCheck %s --check-prefix=FAKE
// RUN: FileCheck %s --check-prefix=FAKE-ERR < %t.err
// FAKE: rank = 1 offset = 0 sizes = [8]
// FAKE-NEXT: [42,  42,  42,  42,  42,  42,  42,  42]
// FAKE-ERR: ext-run: running on Fake CUDA Device (sm_80)
// FAKE-ERR: ext-run: kernel main_kernel grid (1, 1, 1) block (8, 1, 1): 0.250 ms

// An unknown chip is the pipeline's error.
// RUN: env EXT_CUDA_DRIVER=%fake_cuda not ext-run --target=cuda --chip=gfx90a %S/Inputs/gpu-double.mlir 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: ext-run: error: ext-gpu-pipeline: chip 'gfx90a' is not an NVIDIA chip

// Decompositions with a fixup need a workspace: allocated, zeroed and freed
// on the device around the launches (mgpuMemAlloc, mgpuMemset32,
// mgpuMemFree), passed to the kernels as it is (never staged through the
// host), and one extra launch for parallel split-K's reduction.
// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 not ext-run --target=cuda --chip=sm_90 --print-lowered %ext_src/examples/kernels/gemm_streamk.mlir 2>/dev/null | FileCheck %s --check-prefix=WORKSPACE
// WORKSPACE: llvm.call @mgpuMemAlloc
// WORKSPACE: llvm.call @mgpuMemset32
// WORKSPACE: gpu.launch_func @gemm_streamk_kernel::@gemm_streamk_kernel
// WORKSPACE: llvm.call @mgpuMemFree
// RUN: env EXT_CUDA_DRIVER=%fake_cuda ext-run --target=cuda %ext_src/examples/kernels/gemm_streamk.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=STREAMK
// STREAMK: ext-run: kernel gemm_streamk_kernel grid (5, 1, 1) block (256, 1, 1)
// RUN: sed 's/#ext.split_k<slices = 3, mode = serial>/#ext.split_k<slices = 3, mode = parallel>/' %ext_src/examples/kernels/gemm_splitk.mlir > %t.parallel.mlir
// RUN: grep -q "mode = parallel" %t.parallel.mlir
// RUN: env EXT_CUDA_DRIVER=%fake_cuda ext-run --target=cuda %t.parallel.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=PARALLEL
// PARALLEL: ext-run: kernel gemm_splitk_kernel grid (36, 1, 1)
// PARALLEL: ext-run: kernel gemm_splitk_kernel grid (12, 1, 1)

// Kernels over a dynamic M on the CUDA host path: the host plans every
// launch from M (auto through the launch planner, which the CUDA run loads
// too; split-K's 2 slices per tile), at M = 1 (2 tiles) and M = 100 (14).
// RUN: env EXT_CUDA_DRIVER=%fake_cuda EXT_REPORT_LAUNCH_PLANS=1 ext-run --target=cuda %S/Inputs/dynamic-m-launch.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: ext: #ext.auto at launch: stream_k for 2 tiles of 4 iterations on 4 SMs
// DYNAMIC: ext: #ext.auto at launch: stream_k for 14 tiles of 4 iterations on 4 SMs
// DYNAMIC: kernel gemm_auto_kernel grid (4, 1, 1)
// DYNAMIC: kernel gemm_split_k_kernel grid (4, 1, 1)
// DYNAMIC: kernel gemm_auto_kernel grid (4, 1, 1)
// DYNAMIC: kernel gemm_split_k_kernel grid (28, 1, 1)
