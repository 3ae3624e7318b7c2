// mma = auto picks sm_90a's warpgroup MMA where the schedule is one it runs
// (warps down M, both inputs in a swizzled layout its descriptors read),
// mma.sync elsewhere: the wgmma example with `mma = auto` becomes wgmma_k16
// on sm_90a and runs exact on the emulator; on sm_90 (no wgmma) the same
// schedule is mma.sync m16n8k16, once its warp specialization and cluster (whose
// consumers compute on wgmma) is dropped; with it, refused. (A schedule
// without swizzled caches stays mma.sync on sm_90a:
// test/python/test_portable_schedules.py.)
// RUN: sed 's/mma = #ext.mma<wgmma_k16>/mma = auto/' %ext_src/examples/kernels/gemm_f16_wgmma.mlir > %t.mlir
// RUN: ext-opt %t.mlir --ext-apply-schedule | FileCheck %s --check-prefix=SM90A
// SM90A: ext.tile_compute {{.*}}#ext.mma<wgmma_k16
// SM90A-NOT: m16n8k16
// RUN: ext-run %t.mlir | FileCheck %s --check-prefix=EXACT
// EXACT: data =
// EXACT-NEXT: [0]
// RUN: sed -e 's/chip = "sm_90a"/chip = "sm_90"/' -e 's/ specialize = cooperative,//' -e 's/ *cluster = \[2, 2\],//' %t.mlir > %t.sm90.mlir
// RUN: ext-opt %t.sm90.mlir --ext-apply-schedule | FileCheck %s --check-prefix=SM90
// SM90: ext.tile_compute {{.*}}#ext.mma<m16n8k16
// SM90-NOT: wgmma
// RUN: sed 's/chip = "sm_90a"/chip = "sm_90"/' %t.mlir | not ext-opt --ext-apply-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWS
// NOWS: error: 'ext.compute' op schedule with specialize = cooperative: its consumers compute on warpgroup MMAs; mma resolved to another layout
