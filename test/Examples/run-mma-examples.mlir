// The tensor-core GEMMs run on the CPU emulator, which executes ldmatrix,
// mma.sync and mfma as warp collectives with each instruction's lane
// layouts, and give the reference's numbers on the ragged 200x130x100
// problem (edge tiles in M, N and K): max |C - reference| = 0, as the inputs
// are small integers, exact in f16, bf16 and tf32 and their f32 sums.
// One run per instruction shape and type.

// m16n8k16 f16 (ldmatrix.x4 for A, ldmatrix.x4.trans for two n-tiles of B), another
// interleaving of the threads, and bf16.
// RUN: ext-run %ext_src/examples/kernels/gemm_f16_mma.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --emu-seed=5 %ext_src/examples/kernels/gemm_f16_mma.mlir | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/f16/bf16/g' %ext_src/examples/kernels/gemm_f16_mma.mlir | ext-run - | FileCheck %s --check-prefix=EXACT
// The 128x256 tile over 2x4 warps on a ragged 200x300x100 problem.
// RUN: ext-run --emu-seed=2 %ext_src/examples/kernels/gemm_f16_mma_large.mlir | FileCheck %s --check-prefix=EXACT
// sm_90a's warpgroup MMA: the 128x256 tile over two warpgroups, C = A B^T
// on a ragged 200x300x100 problem, and bf16.
// RUN: ext-run --emu-seed=4 %ext_src/examples/kernels/gemm_f16_wgmma.mlir | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/f16/bf16/g' %ext_src/examples/kernels/gemm_f16_wgmma.mlir | ext-run - | FileCheck %s --check-prefix=EXACT
// m16n8k8 tf32 and the AMD shapes on the f32 GEMM.
// RUN: sed -e 's/threads = \[16, 16, 1\],/threads = [4, 32, 1],/' \
// RUN:     -e 's/layout = #ext.blocked<thread_tile = \[4, 4\]>,/mma = #ext.mma<m16n8k8>, warps = [2, 2],/' \
// RUN:     %ext_src/examples/kernels/gemm_f32.mlir | ext-run - | FileCheck %s --check-prefix=EXACT
// RUN: sed -e 's/threads = \[16, 16, 1\],/threads = [4, 64, 1],/' \
// RUN:     -e 's/layout = #ext.blocked<thread_tile = \[4, 4\]>,/mma = #ext.mma<mfma_32x32x2>, warps = [2, 2],/' \
// RUN:     %ext_src/examples/kernels/gemm_f32.mlir | ext-run --chip=gfx942 - | FileCheck %s --check-prefix=EXACT
// MFMA f16: 32x32x8 (the example) and 16x16x16.
// RUN: ext-run --chip=gfx942 %ext_src/examples/kernels/gemm_f16_mfma.mlir | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/mfma_32x32x8/mfma_16x16x16/' %ext_src/examples/kernels/gemm_f16_mfma.mlir | ext-run --chip=gfx90a - | FileCheck %s --check-prefix=EXACT
// mma = auto picks the instruction for the chip.
// RUN: sed 's/mma = #ext.mma<m16n8k16>/mma = auto/' %ext_src/examples/kernels/gemm_f16_mma.mlir | ext-run --chip=sm_90 - | FileCheck %s --check-prefix=EXACT
// Split-K and Stream-K around tensor cores: the fixups store and combine
// the partial accumulators through the MMA layout.
// RUN: sed 's/warps = \[2, 2\], vector = 8,/warps = [2, 2], vector = 8, decomposition = #ext.split_k<slices = 2>,/' %ext_src/examples/kernels/gemm_f16_mma.mlir | ext-run - | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/warps = \[2, 2\], vector = 8,/warps = [2, 2], vector = 8, decomposition = #ext.stream_k<grid = 7>,/' %ext_src/examples/kernels/gemm_f16_mma.mlir | ext-run - | FileCheck %s --check-prefix=EXACT

// EXACT: rank = 0 offset = 0 sizes = [] strides = [] data =
// EXACT-NEXT: [0]
