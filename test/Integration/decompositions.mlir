// Every decomposition of a ragged 150x130x200 f32 GEMM (9 tiles of 13
// iterations) runs on the emulator and matches the reference exactly; grids
// that split tiles unevenly (6 and 7 CTAs for 9 tiles) included. The bit
// hash of a non-integer run is the same under other seeds and schedules
// (the fixup combines partials in a fixed order).
// RUN: sed 's/DECOMPOSITION/#ext.data_parallel/' %S/Inputs/decomposed-gemm-f32.mlir > %t.dp.mlir
// RUN: ext-run %t.dp.mlir | grep -v base@ | FileCheck %s
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 7>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk7.mlir
// RUN: ext-run %t.sk7.mlir | grep -v base@ > %t.sk7.out && FileCheck %s < %t.sk7.out
// RUN: ext-run --emu-seed=5 %t.sk7.mlir | grep -v base@ | cmp - %t.sk7.out
// RUN: ext-run --emu-schedule=sequential %t.sk7.mlir | grep -v base@ | cmp - %t.sk7.out
// RUN: ext-run --emu-schedule=round-robin %t.sk7.mlir | grep -v base@ | cmp - %t.sk7.out
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 6>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk6.mlir
// RUN: ext-run %t.sk6.mlir | grep -v base@ > %t.sk6.out && FileCheck %s < %t.sk6.out
// RUN: ext-run --emu-seed=3 %t.sk6.mlir | grep -v base@ | cmp - %t.sk6.out
// More CTAs than iterations of a tile: 5 contributors per tile at 40 CTAs.
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 40>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk40.mlir
// RUN: ext-run %t.sk40.mlir | grep -v base@ > %t.sk40.out && FileCheck %s < %t.sk40.out
// RUN: ext-run --emu-seed=9 %t.sk40.mlir | grep -v base@ | cmp - %t.sk40.out
// Deadlock freedom with fewer resident CTAs than the grid: every wait is on
// a CTA that started earlier, which is resident or done. One resident block
// (256 threads) and two, under each schedule.
// RUN: env EXT_EMU_MAX_RESIDENT_THREADS=256 ext-run %t.sk40.mlir | grep -v base@ | cmp - %t.sk40.out
// RUN: env EXT_EMU_MAX_RESIDENT_THREADS=512 ext-run --emu-schedule=round-robin %t.sk40.mlir | grep -v base@ | cmp - %t.sk40.out
// RUN: env EXT_EMU_MAX_RESIDENT_THREADS=512 ext-run --emu-seed=11 %t.sk7.mlir | grep -v base@ | cmp - %t.sk7.out
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 3, mode = serial>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sks.mlir
// RUN: ext-run %t.sks.mlir | grep -v base@ > %t.sks.out && FileCheck %s < %t.sks.out
// RUN: ext-run --emu-seed=4 %t.sks.mlir | grep -v base@ | cmp - %t.sks.out
// RUN: env EXT_EMU_MAX_RESIDENT_THREADS=256 ext-run --emu-schedule=round-robin %t.sks.mlir | grep -v base@ | cmp - %t.sks.out
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 4, mode = parallel>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.skp.mlir
// RUN: ext-run %t.skp.mlir | grep -v base@ > %t.skp.out && FileCheck %s < %t.skp.out
// RUN: ext-run --emu-seed=4 %t.skp.mlir | grep -v base@ | cmp - %t.skp.out
// 9 tiles on 4 SMs: 2 full waves and one Stream-K tile / a 2-tile hybrid.
// RUN: sed 's/DECOMPOSITION/#ext.stream_k_dp<sms = 4>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.skdp.mlir
// RUN: ext-run %t.skdp.mlir | grep -v base@ > %t.skdp.out && FileCheck %s < %t.skdp.out
// RUN: ext-run --emu-seed=2 %t.skdp.mlir | grep -v base@ | cmp - %t.skdp.out
// RUN: sed 's/DECOMPOSITION/#ext.stream_k_2tile<sms = 4>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk2t.mlir
// RUN: ext-run %t.sk2t.mlir | grep -v base@ > %t.sk2t.out && FileCheck %s < %t.sk2t.out
// RUN: ext-run --emu-seed=2 %t.sk2t.mlir | grep -v base@ | cmp - %t.sk2t.out
// RUN: sed 's/DECOMPOSITION/#ext.auto<sms = 132>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.auto.mlir
// RUN: ext-run %t.auto.mlir | grep -v base@ | FileCheck %s
// f16 inputs, f32 accumulation (the f16 example: 12 tiles of 4 iterations).
// RUN: sed 's/#ext.cache<operand = 1>\], stages = 3>}/#ext.cache<operand = 1>], stages = 3, decomposition = #ext.stream_k<grid = 7>>}/' %ext_src/examples/kernels/gemm_f16.mlir | ext-run - | grep -v base@ | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/#ext.cache<operand = 1>\], stages = 3>}/#ext.cache<operand = 1>], stages = 3, decomposition = #ext.split_k<slices = 2, mode = parallel>>}/' %ext_src/examples/kernels/gemm_f16.mlir | ext-run - | grep -v base@ | FileCheck %s --check-prefix=EXACT
// RUN: sed 's/#ext.cache<operand = 1>\], stages = 3>}/#ext.cache<operand = 1>], stages = 3, decomposition = #ext.stream_k_dp<sms = 5>>}/' %ext_src/examples/kernels/gemm_f16.mlir | ext-run - | grep -v base@ | FileCheck %s --check-prefix=EXACT
// EXACT: [0]

// CHECK: [0]
// CHECK-NEXT: [{{-?[0-9]+}}]
