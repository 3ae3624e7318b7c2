// bench/gpu/run.py end to end on the fake CUDA driver (test/Tools/FakeCuda:
// host memory, kernels that write 42): every NVIDIA GEMM example's program
// (inputs copied to gpu.alloc'ed buffers once, the timed launches on them,
// C copied back and compared with a host reference) lowers, launches and is
// timed; the fake's kernels compute nothing, so every check must fail and
// the script exit 1. Without a driver it says so and exits 0.
// RUN: env EXT_CUDA_DRIVER=%fake_cuda not %python %ext_src/bench/gpu/run.py --build %ext_obj --no-cublas --shapes 256x256x64 --reps 1 --out %t.csv | FileCheck %s
// CHECK: bench/gpu: Fake CUDA Device
// CHECK-DAG: gemm_f16 256x256x64 {{.*}} WRONG
// CHECK-DAG: gemm_f16_mma 256x256x64 {{.*}} WRONG
// CHECK-DAG: gemm_f16_mma_large 256x256x64 {{.*}} WRONG
// CHECK-DAG: gemm_f32 256x256x64 {{.*}} WRONG
// CHECK-DAG: gemm_splitk 256x256x64 {{.*}} WRONG
// CHECK-DAG: gemm_streamk 256x256x64 {{.*}} WRONG
// CHECK: 6 runs, 6 failed
// RUN: FileCheck %s --check-prefix=CSV < %t.csv
// CSV: kernel,M,N,K,ext_tflops,cublas_tflops,ratio,check
// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 %python %ext_src/bench/gpu/run.py --build %ext_obj | FileCheck %s --check-prefix=NOGPU
// NOGPU: bench/gpu: no GPU here
