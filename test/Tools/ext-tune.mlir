// REQUIRES: ext-tune
// ext-tune: ext.tune for MLIR files. Each compute without a schedule that no
// other compute reads gets the schedule the tuner finds (its named
// producers fused), checked on the emulator at a reduced size; the result
// lowers to PTX and runs right.
// RUN: ext-tune %S/Inputs/tune-computes.mlir --chip=sm_90a --no-database --min-legal=20 --trials=1 -o %t.mlir 2> %t.report
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: FileCheck %s --input-file=%t.report --check-prefix=REPORT
// RUN: ext-opt %t.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90a" -o /dev/null
// gfx942 gets MFMA for the GEMM.
// RUN: ext-tune %S/Inputs/tune-computes.mlir --chip=gfx942 --no-database --min-legal=20 --trials=1 --function=gemm --quiet | FileCheck %s --check-prefix=AMD
// Bad input: a compute that does not exist, a chip that does not.
// RUN: not ext-tune %S/Inputs/tune-computes.mlir --compute=nope --function=gemm 2>&1 | FileCheck %s --check-prefix=NOPE
// RUN: not ext-tune %S/Inputs/tune-computes.mlir --chip=k80 2>&1 | FileCheck %s --check-prefix=CHIP

// CHECK-LABEL: func.func @gemm
// CHECK:         name = "C", schedule = #ext.schedule<{{.*}}mma = #ext.mma<wgmma_k16>
// CHECK-LABEL: func.func @softmax
// CHECK:         name = "y", schedule = #ext.schedule<{{.*}}compute_at = [#ext.at<"row_max", "i">, #ext.at<"row_sum", "i">]>

// REPORT:      @gemm compute #0:
// REPORT:      tune gemm 'C' [i=1024, j=768, k(r)=512] f16->f32 on sm_90a
// REPORT:      legal
// REPORT:      best: {{.*}}wgmma_k16
// REPORT:      @softmax compute #2:
// REPORT:      tune rowwise 'y' [i=300, j=1000] f32->f32; fuses row_max@i, row_sum@i on sm_90a

// AMD: schedule = #ext.schedule<{{.*}}mma = #ext.mma<mfma_

// NOPE: ext-tune: @gemm has no compute 'nope' (it has ['C'])
// CHIP: ext-tune: {{.*}}unknown chip 'k80': it is neither sm_NN (NVIDIA) nor gfxNNN (AMD); valid chips are
