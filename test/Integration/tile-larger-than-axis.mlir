// Tiles larger than their axes are masked, not refused: a GEMM of 1, 5 and
// 70 rows by 130 columns by 8 with a 64x64x16 tile (Inputs/small-m-gemm-f32.mlir)
// runs on the emulator and matches the reference exactly, under the
// data-parallel decomposition and under Stream-K (grids that do not divide
// the tiles). The plan: ceil(rows / 64) x 3 tiles of one ragged iteration.
//
// RUN: sed 's/MROWS/1/g; s/DECOMPOSITION/#ext.data_parallel/' %S/Inputs/small-m-gemm-f32.mlir > %t.m1.mlir
// RUN: ext-opt --ext-apply-schedule %t.m1.mlir | FileCheck %s --check-prefix=PLAN1
// RUN: ext-run %t.m1.mlir | FileCheck %s
// RUN: sed 's/MROWS/5/g; s/DECOMPOSITION/#ext.stream_k<grid = 2>/' %S/Inputs/small-m-gemm-f32.mlir > %t.m5.mlir
// RUN: ext-run %t.m5.mlir | FileCheck %s
// RUN: sed 's/MROWS/70/g; s/DECOMPOSITION/#ext.stream_k_dp<sms = 4>/' %S/Inputs/small-m-gemm-f32.mlir > %t.m70.mlir
// RUN: ext-opt --ext-apply-schedule %t.m70.mlir | FileCheck %s --check-prefix=PLAN70
// RUN: ext-run %t.m70.mlir | FileCheck %s

// PLAN1-LABEL: func.func @gemm
// PLAN1: ext.kernel tiles [1, 3] iters 1 threads 256
// PLAN70-LABEL: func.func @gemm
// PLAN70: ext.kernel tiles [2, 3] iters 1

// CHECK: data =
// CHECK-NEXT: [0]
