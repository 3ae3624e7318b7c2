// Pipelined k-loops (stages = 2, 3, 4) on the emulator, against the
// unscheduled reference: the four kernels of register-blocking.mlir (a
// ragged 37x43x29 problem, k-steps of 8: 29 = 3 x 8 + 5; a product under
// `sum` zero-fills the tail, `exp` under `sum`, `max` and `min` peel it),
// staged through registers (no chip: what AMD and async = false get) and
// with asynchronous copies (--chip=sm_80: nvgpu.device_async_copy, which
// the emulator lands at a point its seed picks, at the latest at the wait
// covering it), under several seeds and racecheck. k-steps of 16 leave 2
// steps per tile, fewer than 3 or 4 stages. Every case prints
// max |kernel - reference| = 0 four times.
//
// RUN: sed 's/vector = 4,/vector = 4, stages = 2,/' %S/register-blocking.mlir > %t.s2.mlir
// RUN: ext-run %t.s2.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 %t.s2.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 --emu-seed=7 %t.s2.mlir | FileCheck %s
// RUN: sed 's/vector = 4,/vector = 4, stages = 3,/' %S/register-blocking.mlir > %t.s3.mlir
// RUN: ext-run --racecheck %t.s3.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 --racecheck %t.s3.mlir | FileCheck %s
// RUN: ext-run --chip=sm_90 --emu-seed=3 --racecheck %t.s3.mlir | FileCheck %s
// RUN: ext-run --chip=gfx942 --emu-seed=11 %t.s3.mlir | FileCheck %s
// RUN: sed 's/vector = 4,/vector = 4, stages = 4,/' %S/register-blocking.mlir > %t.s4.mlir
// RUN: ext-run --emu-seed=5 %t.s4.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 --emu-seed=5 --racecheck %t.s4.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 --emu-schedule=sequential %t.s4.mlir | FileCheck %s
// RUN: sed 's/vector = 4,/vector = 4, stages = 4,/; s/tile = \[16, 16, 8\]/tile = [16, 16, 16]/' %S/register-blocking.mlir > %t.few.mlir
// RUN: ext-run --racecheck %t.few.mlir | FileCheck %s
// RUN: ext-run --chip=sm_80 --emu-seed=2 --racecheck %t.few.mlir | FileCheck %s
// RUN: sed 's/vector = 4,/vector = 4, stages = 3, async = false,/; s/tile = \[16, 16, 8\]/tile = [16, 16, 16]/' %S/register-blocking.mlir > %t.sync.mlir
// RUN: ext-run --chip=sm_80 --emu-seed=4 %t.sync.mlir | FileCheck %s
//
// Work units of a decomposition: Stream-K on 40 CTAs splits each 13-step
// tile among 5 (2 or 3 k-steps per unit, fewer than 4 stages, starting
// anywhere in the tile), serial split-K in 3 slices; the bits of C match
// the unpipelined kernel's.
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 40>/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk.mlir
// RUN: ext-run %t.sk.mlir | grep -v base@ > %t.sk.out
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 40>, stages = 4/' %S/Inputs/decomposed-gemm-f32.mlir > %t.sk4.mlir
// RUN: ext-run %t.sk4.mlir | grep -v base@ | cmp - %t.sk.out
// RUN: ext-run --chip=sm_80 --emu-seed=6 %t.sk4.mlir | grep -v base@ | cmp - %t.sk.out
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 3, mode = serial>, stages = 3/' %S/Inputs/decomposed-gemm-f32.mlir > %t.ks3.mlir
// RUN: ext-run --chip=sm_80 --racecheck %t.ks3.mlir | grep -v base@ | FileCheck %s --check-prefix=EXACT

// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK-NOT: racecheck
// EXACT: [0]
