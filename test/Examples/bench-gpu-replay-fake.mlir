// bench/gpu/export.py compiles the GEMMs here and bench/gpu/replay.py runs
// them where MLIR is not installed (a lent GPU machine). On the fake CUDA
// driver (test/Tools/FakeCuda: kernels write 42 into their buffers) every
// entry's host steps replay: workspaces, memsets, launches with the opt-in
// above 48 KB of dynamic shared memory, the memref descriptors. The fake
// computes nothing, so every check must fail and replay exit 1. The
// warpgroup MMA tests of test/Emulator come first, as probes (sm_90a), then
// the thread block cluster probe (bench/gpu/cluster-probe.mlir: its launch
// records its cluster, and the replay launches it with cuLaunchKernelEx on
// a fake that says it is an sm_90; bench-gpu-cluster-fake.mlir has more).
// RUN: rm -rf %t && %python %ext_src/bench/gpu/export.py %t --build %ext_obj --shapes 256x256x128 --decomposition-shapes 256x512x64 --sweep-shapes 512x512x128 | FileCheck %s --check-prefix=EXPORT
// EXPORT: wgmma-probe:f16-swizzle128 64x128x64: wgmma_kernel: {{[0-9]+}} registers, 0 B spilled
// EXPORT: cluster-probe 128x128x64: gemm_kernel: {{[0-9]+}} registers, 0 B spilled
// EXPORT: mma_128x256x32_w2x4_s3 512x512x128:
// EXPORT: mma_large+split_k_par 256x512x64:
// EXPORT: 38 exported, 0 failed
// The TMA example passes its tensor maps (built by the replay with
// cuTensorMapEncodeTiled over the operands, then copied to the device).
// RUN: grep -c '"tensor_map"' %t/manifest.json | FileCheck %s --check-prefix=TMA
// TMA: {{^}}2{{$}}
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 not %python %ext_src/bench/gpu/replay.py %t --no-cublas --out %t/results.csv 2>&1 | FileCheck %s
// CHECK: bench/gpu/replay: Fake CUDA Device
// CHECK-DAG: fake-cuda: max dynamic shared memory 81408 bytes
// CHECK-DAG: fake-cuda: cluster (2, 2, 1) of grid (8, 8, 1)
// CHECK-DAG: cluster-probe 128x128x64 {{.*}} WRONG
// CHECK-DAG: gemm_f32 256x256x128 {{.*}} WRONG
// CHECK-DAG: wgmma-probe:tf32-swizzle32 64x16x16 {{.*}} WRONG
// CHECK-DAG: mma_large+stream_k 256x512x64 {{.*}} WRONG
// CHECK-DAG: gemm_f16_wgmma:nt 256x256x128 {{.*}} WRONG
// CHECK-DAG: wgmma_128x256x64_s3 512x512x128 {{.*}} WRONG
// CHECK-DAG: wgmma_128x256x64_s3:nt 512x512x128 {{.*}} WRONG
// CHECK-DAG: mma_large+split_k_par 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_128x128x64_w2x2_s3 512x512x128 {{.*}} WRONG
// CHECK: 38 runs, 38 failed
// RUN: FileCheck %s --check-prefix=CSV < %t/results.csv
// CSV: kernel,M,N,K,ext_ms,ext_tflops,cublas_tflops,ratio,check
// CSV: wgmma-probe:bf16-swizzle64,64,32,32,{{.*}},WRONG
// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 %python %ext_src/bench/gpu/replay.py %t | FileCheck %s --check-prefix=NOGPU
// NOGPU: bench/gpu/replay: no GPU here
