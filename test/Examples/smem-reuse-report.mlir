// The GEMM examples stage their output through shared memory; the k-loop's
// A and B tiles are dead by the epilogue, so ext-gpu-reuse-shared-memory packs
// them into the staging tile's bytes: the footprint is the larger of the
// two, not the sum, and the report says so. In the Stream-K example the
// k-loop and the epilogue sit in a persistent loop over work units, which
// carries neither buffer's data (each k-step and each epilogue writes its
// whole tile before a barrier and reads it after): they share too.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16.mlir --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=F16
// RUN: ext-opt %ext_src/examples/kernels/gemm_splitk.mlir --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLITK
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STREAMK

// 3 stages of 128x8 and 8x128 f32 tiles (4 KB each), a 128x128 f32 staging
// tile (64 KB).
// F32: kernel @gemm
// F32: footprint 65536 B with reuse, 90112 B without: the largest buffer, #6 (65536 B), holds the bytes of all the others: the footprint is the largest buffer (plus alignment), not the sum

// 3 stages of 64x32 f16 (rows padded to 40) and 32x64 f16 tiles (27 KB), a
// 64x64 f32 staging tile (16 KB) that fits in their bytes.
// F16: kernel @gemm_f16
// F16: footprint 27648 B with reuse, 44032 B without: 16384 B shared

// 64x16 f32 (rows padded to 33) and 16x64 f32 tiles, a 64x64 f32 staging tile.
// SPLITK: kernel @gemm_splitk
// SPLITK: footprint 16384 B with reuse, 28928 B without: the largest buffer, #2 (16384 B), holds the bytes of all the others
// STREAMK: kernel @gemm_streamk
// STREAMK: footprint 16384 B with reuse, 24576 B without: the largest buffer, #2 (16384 B), holds the bytes of all the others
