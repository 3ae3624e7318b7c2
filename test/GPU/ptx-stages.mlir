// The pipelined f16 GEMM example's PTX (8-byte copies of A's 100-half rows) for sm_80 and sm_90 holds cp.async,
// cp.async.commit_group and cp.async.wait_group, and ptxas accepts it.
// REQUIRES: ptxas
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.80.ptx
// RUN: FileCheck %s < %t.80.ptx
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.90.ptx
// RUN: FileCheck %s < %t.90.ptx
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o /dev/null
// The f32 example's A rows take 16-byte copies: cp.async.cg (L1 bypassed).
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.f32.ptx
// RUN: FileCheck %s --check-prefix=F32 < %t.f32.ptx
// RUN: %ptxas -arch=sm_90 %t.f32.ptx -o /dev/null
// F32: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// F32: cp.async.wait_group 1;
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8, {{.*}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
