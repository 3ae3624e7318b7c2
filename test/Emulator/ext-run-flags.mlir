// ext-run's emulation flags are checked before anything runs, and so are the
// environment variables the runtime reads (for mlir-runner users).
// RUN: not ext-run --emu-schedule=fastest %s 2>&1 | FileCheck %s --check-prefix=SCHED
// SCHED: ext-run: error: --emu-schedule must be random, round-robin or sequential
// RUN: not ext-run --emu-seed=-3 %s 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: ext-run: error: --emu-seed must be a non-negative integer
// RUN: env EXT_EMU_SCHEDULE=lockstep not ext-run %s 2>&1 | FileCheck %s --check-prefix=ENV
// ENV: ext-emu: error: EXT_EMU_SCHEDULE='lockstep' is not one of random, round-robin, sequential
// The same kernel also runs through mlir-runner with the runtime loaded.
// RUN: ext-opt --ext-cpu-pipeline %s | mlir-runner -e main -entry-point-result=void -shared-libs=%ext_libs/libExtCpuEmulationRuntime%shlibext | FileCheck %s --check-prefix=RUNNER
// RUNNER: emulated 4 threads

func.func @main() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %n = gpu.block_dim x
    %first = arith.cmpi eq, %tx, %bx : index
    scf.if %first {
      gpu.printf "emulated %ld threads\n", %n : index
    }
    gpu.terminator
  }
  return
}
