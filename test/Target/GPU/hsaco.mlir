// --ext-to-hsaco links an AMDHSA code object with the build's ROCm-shaped
// toolkit folder (Debian's device libraries, lld-22): the kernel's symbol
// and its descriptor are in the ELF, for gfx90a and gfx942.
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.matmul-90a.hsaco
// RUN: llvm-readelf --file-header --symbols %t.matmul-90a.hsaco | FileCheck %s --check-prefixes=MATMUL,GFX90A
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.matmul-942.hsaco
// RUN: llvm-readelf --file-header --symbols %t.matmul-942.hsaco | FileCheck %s --check-prefixes=MATMUL,GFX942
// RUN: ext-opt %S/../../GPU/Inputs/row-sum.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.rowsum-90a.hsaco
// RUN: llvm-readelf --symbols %t.rowsum-90a.hsaco | FileCheck %s --check-prefix=ROWSUM
// RUN: ext-opt %S/../../GPU/Inputs/row-sum.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.rowsum-942.hsaco
// RUN: llvm-readelf --symbols %t.rowsum-942.hsaco | FileCheck %s --check-prefix=ROWSUM
// RUN: ext-opt %S/../../GPU/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.f16-90a.hsaco
// RUN: llvm-readelf --symbols %t.f16-90a.hsaco | FileCheck %s --check-prefix=F16
// RUN: ext-opt %S/../../GPU/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.f16-942.hsaco
// RUN: llvm-readelf --symbols %t.f16-942.hsaco | FileCheck %s --check-prefix=F16

// Code object v5 (ELF ABI version 3), the pipeline's default abi=500.
// MATMUL: OS/ABI: AMDGPU - HSA
// MATMUL-NEXT: ABI Version: 3
// MATMUL-NEXT: Type: DYN (Shared object file)
// MATMUL-NEXT: Machine: EM_AMDGPU
// GFX90A: Flags: {{.*}}, gfx90a,
// GFX942: Flags: {{.*}}, gfx942,
// MATMUL-DAG: FUNC GLOBAL PROTECTED {{.*}} matmul_kernel{{$}}
// MATMUL-DAG: OBJECT GLOBAL DEFAULT {{.*}} matmul_kernel.kd{{$}}
// ROWSUM: FUNC GLOBAL PROTECTED {{.*}} row_sum_kernel{{$}}
// F16: FUNC GLOBAL PROTECTED {{.*}} axpy_f16_kernel{{$}}
