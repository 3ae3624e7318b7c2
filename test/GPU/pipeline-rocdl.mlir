// ext-gpu-pipeline for AMD: the same kernels in the ROCDL LLVM dialect under
// a #rocdl.target (code object v5 by default).
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | FileCheck %s --check-prefix=MATMUL --implicit-check-not=malloc --implicit-check-not=memref.alloc
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942 reuse-shared-memory=false" | FileCheck %s --check-prefix=NOREUSE
// RUN: ext-opt %S/Inputs/row-sum.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a abi=400" | FileCheck %s --check-prefix=ROWSUM
// RUN: ext-opt %S/Inputs/matmul.mlir --ext-gpu-pipeline=target=rocdl | FileCheck %s --check-prefix=DEFAULT

// MATMUL: gpu.launch_func @matmul_kernel::@matmul_kernel
// MATMUL: gpu.module @matmul_kernel [#rocdl.target<chip = "gfx942", abi = "500">]
// ext-gpu-reuse-shared-memory (on by default) packs the two tiles, live together
// in the k loop, into one 2048-byte buffer; without it they stay apart.
// MATMUL: llvm.mlir.global internal @__wg_matmul_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// NOREUSE-DAG: llvm.mlir.global internal @__wg_matmul_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// NOREUSE-DAG: llvm.mlir.global internal @__wg_matmul_kernel_1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// MATMUL: llvm.func @matmul_kernel({{.*}}) attributes {gpu.kernel, {{.*}}rocdl.kernel
// MATMUL: rocdl.workgroup.id.x
// MATMUL: rocdl.workitem.id.x
// MATMUL: llvm.store {{.*}} : f32, !llvm.ptr<3>
// MATMUL: rocdl.barrier
// MATMUL: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// MATMUL: rocdl.barrier
// MATMUL-NOT: gpu.barrier

// ROWSUM: gpu.module @row_sum_kernel [#rocdl.target<chip = "gfx90a", abi = "400">]
// ROWSUM: rocdl.ds_bpermute
// ROWSUM: rocdl.barrier
// ROWSUM: llvm.atomicrmw fadd

// DEFAULT: gpu.module @matmul_kernel [#rocdl.target<chip = "gfx90a", abi = "500">]
