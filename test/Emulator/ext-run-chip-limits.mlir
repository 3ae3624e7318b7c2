// ext-run checks a kernel against the chip it stands for, as ext-opt's
// pipelines do (ext-gpu-check-resource-limits), and both default to sm_80.
// gemm_f32 with 32-deep k steps keeps 96 KB of shared memory per block:
// beyond gfx942's 64 KB of LDS, within what sm_80 and sm_90 give a block as
// dynamic shared memory.
// RUN: sed 's/tile = \[128, 128, 8\]/tile = [128, 128, 32]/' %ext_src/examples/kernels/gemm_f32.mlir > %t.mlir
// RUN: not ext-run --chip=gfx942 %t.mlir 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not ext-opt %t.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: ext-run --chip=sm_90 %t.mlir 2>/dev/null | FileCheck %s --check-prefix=RUNS
// RUN: ext-run %t.mlir 2>/dev/null | FileCheck %s --check-prefix=RUNS
// AMD: error: the kernel in @gemm uses 98304 bytes (96.0 KB) of shared memory per block; gfx942 allows at most 65536 bytes (64.0 KB) of LDS per block
// RUNS: base@
// RUNS-NEXT: [0]

// Without --chip, ext-run uses the module's #ext.target, else sm_80, as
// ext-opt's pipelines do: 64-deep k steps keep 192 KB per block, beyond
// sm_80's 163 KB and within sm_90's 227 KB.
// RUN: sed 's/tile = \[128, 128, 8\]/tile = [128, 128, 64]/' %ext_src/examples/kernels/gemm_f32.mlir > %t.deep.mlir
// RUN: not ext-run %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not ext-opt %t.deep.mlir --ext-gpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: ext-run --chip=sm_90 %t.deep.mlir 2>/dev/null | FileCheck %s --check-prefix=RUNS
// SM80: error: the kernel in @gemm uses 196608 bytes (192.0 KB) of shared memory per block; sm_80 allows at most
