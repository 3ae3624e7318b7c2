// ext-gpu-pipeline for NVIDIA: kernels outlined into a gpu.module carrying
// the #nvvm.target, workgroup allocs turned into addrspace(3) globals, the
// kernel in the NVVM LLVM dialect; host code untouched.
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | FileCheck %s --check-prefix=MATMUL --implicit-check-not=malloc --implicit-check-not=memref.alloc
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90 reuse-shared-memory=false" | FileCheck %s --check-prefix=NOREUSE
// RUN: ext-opt %S/Inputs/row-sum.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | FileCheck %s --check-prefix=ROWSUM
// RUN: ext-opt %S/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90 O=3" | FileCheck %s --check-prefix=F16
// The default chip is sm_80.
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline=target=nvvm | FileCheck %s --check-prefix=DEFAULT

// MATMUL: module attributes {ext.target = #ext.target<chip = "sm_90">, gpu.container_module}
// MATMUL: func.func @matmul(
// MATMUL: gpu.launch_func @matmul_kernel::@matmul_kernel blocks in ({{.*}}) threads in ({{.*}}) args(
// MATMUL: gpu.module @matmul_kernel [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// ext-gpu-reuse-shared-memory (on by default) packs the two tiles, live together
// in the k loop, into one 2048-byte buffer; without it they stay apart.
// MATMUL: llvm.mlir.global internal @__wg_matmul_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// NOREUSE-DAG: llvm.mlir.global internal @__wg_matmul_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// NOREUSE-DAG: llvm.mlir.global internal @__wg_matmul_kernel_1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// MATMUL: llvm.func @matmul_kernel({{.*}}) attributes {gpu.kernel, {{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 16, 16, 1>}
// MATMUL: nvvm.read.ptx.sreg.ctaid.x
// MATMUL: nvvm.read.ptx.sreg.tid.x
// MATMUL: llvm.store {{.*}} : f32, !llvm.ptr<3>
// MATMUL: nvvm.barrier0
// MATMUL: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// MATMUL: nvvm.barrier0
// MATMUL-NOT: gpu.barrier
// MATMUL-NOT: scf.for

// ROWSUM: gpu.module @row_sum_kernel [#nvvm.target<chip = "sm_80">]
// ROWSUM: llvm.mlir.global internal @__wg_row_sum_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2 x f32>
// ROWSUM: nvvm.shfl.sync bfly
// ROWSUM: nvvm.barrier0
// ROWSUM: llvm.atomicrmw fadd {{.*}} : !llvm.ptr, f32

// F16: gpu.module @axpy_f16_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// F16: llvm.load {{.*}} -> f16
// F16: llvm.fmul {{.*}} : f16
// F16: llvm.fadd {{.*}} : f16
// F16: llvm.fpext {{.*}} : f16 to f32

// DEFAULT: gpu.module @matmul_kernel [#nvvm.target<chip = "sm_80">]
