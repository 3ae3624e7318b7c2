// Issue 59: inputs that reached an assertion or a signal end with a
// diagnostic and status 1 in ext-opt and ext-run (`not` fails on a crash,
// and neither tool may print a stack dump).

// A linalg op with a loop of size 0 (an abort in #ext.axis's builder): it
// stays linalg, with a remark, and runs as host loops.
// RUN: ext-opt %S/Inputs/linalg-zero-extent.mlir --ext-from-linalg 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not="Stack dump"
// RUN: ext-run %S/Inputs/linalg-zero-extent.mlir 2>&1 | FileCheck %s --check-prefix=ZEROEXEC --implicit-check-not="Stack dump"
// ZERO: remark: ext-from-linalg: stays linalg: loop d0 has size 0
// ZERO: linalg.matmul
// ZEROEXEC: 42

// A tile of 2^40 rows: the schedule's verifier refuses it.
// RUN: not ext-opt %S/Inputs/gemm-tile-2-40.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE --implicit-check-not="Stack dump"
// RUN: not ext-run %S/Inputs/gemm-tile-2-40.mlir --entry=gemm --random-inputs=1 2>&1 | FileCheck %s --check-prefix=TILE --implicit-check-not="Stack dump"
// TILE: error: 'ext.compute' op schedule: tile [1099511627776, 64, 16] covers 1125899906842624 points; a tile may cover at most 2^48

// 2^20 rows without caches: 1 MB of private buffers per thread, an error
// (it was a warning, then a segfault on the emulator).
// RUN: not ext-opt %S/Inputs/gemm-huge-private-tile.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRIVATE90 --implicit-check-not="Stack dump"
// RUN: not ext-run %S/Inputs/gemm-huge-private-tile.mlir --entry=gemm --random-inputs=1 2>&1 | FileCheck %s --check-prefix=PRIVATE80 --implicit-check-not="Stack dump"
// RUN: not ext-opt %S/Inputs/gemm-huge-private-tile.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRIVATEAMD --implicit-check-not="Stack dump"
// PRIVATE90: error: the kernel in @gemm keeps 1048576 bytes (1024.0 KB) of private buffers per thread; sm_90 gives a thread at most 524288 bytes (512.0 KB) of local memory
// PRIVATE90-NOT: warning
// PRIVATE80: error: the kernel in @gemm keeps 1048576 bytes (1024.0 KB) of private buffers per thread; sm_80 gives a thread at most 524288 bytes (512.0 KB) of local memory
// PRIVATE80: ext-run: error: lowering
// PRIVATEAMD: error: the kernel in @gemm keeps 1048576 bytes (1024.0 KB) of private buffers per thread; gfx942 gives a thread at most 131072 bytes (128.0 KB) of scratch memory

// 2^20 rows with cached inputs: a 64 MB shared tile, left alone by
// ext-gpu-reuse-shared-memory (its coverage analysis asserted) and refused
// by the shared-memory limit.
// RUN: not ext-opt %S/Inputs/gemm-huge-shared-tile.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED --implicit-check-not="Stack dump"
// RUN: not ext-run %S/Inputs/gemm-huge-shared-tile.mlir --entry=gemm --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SHARED --implicit-check-not="Stack dump"
// SHARED: error: the kernel in @gemm uses {{[0-9]+}} bytes ({{.*}}) of shared memory per block{{.*}}; sm_{{[89]}}0 allows at most

// A script without @__transform_main: an error naming what it found.
// RUN: not ext-opt %S/Inputs/misnamed-transform-entry.mlir --ext-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENTRY --implicit-check-not="Stack dump"
// RUN: not ext-run %S/Inputs/misnamed-transform-entry.mlir --entry=copy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=ENTRY --implicit-check-not="Stack dump"
// ENTRY: error: ext-apply-transform-script: the module has a transform script, but none of its named sequences is @__transform_main, the entry point it runs (found @main)
// ENTRY-NOT: was not lowered
