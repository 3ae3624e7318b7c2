// RUN: ext-run --emu-threads=1 %ext_src/examples/kernels/gemm_streamk.mlir 2>/dev/null | FileCheck %s
// RUN: ext-run --emu-threads=3 %ext_src/examples/kernels/gemm_streamk.mlir 2>/dev/null | FileCheck %s
// RUN: ext-run --emu-threads=2 --emu-seed=9 %ext_src/examples/kernels/gemm_f32.mlir 2>/dev/null | FileCheck %s
// RUN: env EXT_EMU_THREADS=4 ext-run %ext_src/examples/kernels/gemm_splitk.mlir 2>/dev/null | FileCheck %s
// RUN: not ext-run --emu-threads=x %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env EXT_EMU_THREADS=5000 not ext-run %ext_src/examples/kernels/gemm_f32.mlir 2>&1 | FileCheck %s --check-prefix=BADENV
// A launch's blocks spread over worker threads (one per core by default;
// --emu-threads / EXT_EMU_THREADS choose): the examples, Stream-K and
// split-K fixups (blocks spinning on flags other workers' blocks raise)
// included, give the same numbers for any count; tests/unittests'
// Emulator tests compare the bits across counts.
// CHECK: [0]
// BAD: --emu-threads must be an integer from 0 to 4096
// BADENV: EXT_EMU_THREADS='5000' is more than 4096
func.func @main() {
  return
}
