// The pipelined f32 GEMM example (stages = 3) with asynchronous copies
// (--chip=sm_80) is exact and race-free on the emulator under any seed. With
// --weaken-async-wait, each k-step waits for all but the newest 2 copy groups
// instead of 1: the step's own stage may still be in flight when it computes.
// The emulator lands copies at the latest at the wait that covers them, so
// the step reads the stage from 3 steps before: the result is wrong, and
// racecheck reports the late shared writes against the other threads' reads.
// RUN: ext-run --chip=sm_80 %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --chip=sm_80 --emu-seed=3 --racecheck %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --chip=sm_80 --weaken-async-wait %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=WRONG
// RUN: ext-run --chip=sm_80 --weaken-async-wait --emu-seed=8 %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=WRONG
// RUN: not ext-run --chip=sm_80 --weaken-async-wait --racecheck %ext_src/examples/kernels/gemm_f32.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=RACE
// The tensor-core example pipelines the same way: ldmatrix then reads the
// stale stage.
// RUN: ext-run --chip=sm_80 --racecheck %ext_src/examples/kernels/gemm_f16_mma.mlir | FileCheck %s --check-prefix=RIGHT
// RUN: ext-run --chip=sm_80 --weaken-async-wait %ext_src/examples/kernels/gemm_f16_mma.mlir | FileCheck %s --check-prefix=WRONG
// RIGHT: data =
// RIGHT-NEXT: [0]
// WRONG: data =
// WRONG-NOT: [0]
// WRONG-NEXT: [{{(nan|-?[1-9][0-9.e+]*)}}]
// RACE: ext-emu: error: kernel 'gemm_kernel' (launched at {{.*}}gemm_f32.mlir:23:3): racecheck: {{[0-9]+}} data races
// RACE: ext-emu: race: {{.*}} on shared memory, {{.*}}(shared tile of input {{[01]}}, stage {{[012]}}){{.*}} (staged copy of input {{[01]}} into shared memory)
