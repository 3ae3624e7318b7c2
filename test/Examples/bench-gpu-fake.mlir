// bench/gpu/run.py end to end on the fake CUDA driver (test/Tools/FakeCuda:
// host memory, kernels that write 42): every NVIDIA GEMM example's program
// and every decomposition of the large tensor-core one (inputs copied to
// gpu.alloc'ed buffers once, the timed launches on them, C copied back and
// compared with a host reference) lowers, launches and is timed; the fake's kernels compute nothing, so every check must fail and
// the script exit 1. Without a driver it says so and exits 0.
// RUN: env EXT_CUDA_DRIVER=%fake_cuda not %python %ext_src/bench/gpu/run.py --build %ext_obj --no-cublas --shapes 256x256x128 --decomposition-shapes 256x512x64 --reps 1 --out %t.csv | FileCheck %s
// CHECK: bench/gpu: Fake CUDA Device
// CHECK-DAG: gemm_f16 256x256x128 {{.*}} WRONG
// CHECK-DAG: gemm_f16_mma 256x256x128 {{.*}} WRONG
// CHECK-DAG: gemm_f16_mma_large 256x256x128 {{.*}} WRONG
// CHECK-DAG: gemm_f32 256x256x128 {{.*}} WRONG
// CHECK-DAG: gemm_splitk 256x256x128 {{.*}} WRONG
// CHECK-DAG: gemm_streamk 256x256x128 {{.*}} WRONG
// CHECK-DAG: mma_large+data_parallel 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+persistent 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+split_k 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+split_k_par 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+stream_k 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+stream_k_dp 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+stream_k_2tile 256x512x64 {{.*}} WRONG
// CHECK-DAG: mma_large+auto 256x512x64 {{.*}} WRONG
// CHECK: 14 runs, 14 failed
// RUN: FileCheck %s --check-prefix=CSV < %t.csv
// CSV: kernel,M,N,K,ext_tflops,cublas_tflops,ratio,check
// RUN: env EXT_CUDA_DRIVER=%t.missing/libcuda.so.1 %python %ext_src/bench/gpu/run.py --build %ext_obj | FileCheck %s --check-prefix=NOGPU
// NOGPU: bench/gpu: no GPU here
