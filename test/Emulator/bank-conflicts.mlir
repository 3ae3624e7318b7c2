// ext-run --bank-conflicts counts, for every warp-wide workgroup access the
// emulator executes, the wavefronts it takes; the static worst case of
// ext-gpu-bank-conflicts must agree with the measured one at every access site
// of every example kernel.
// RUN: %python %ext_src/bench/bank_conflicts/compare.py --ext-opt ext-opt --ext-run ext-run %ext_src/examples/kernels/gemm_f32.mlir %ext_src/examples/kernels/gemm_f16.mlir %ext_src/examples/kernels/gemv.mlir %ext_src/examples/kernels/softmax.mlir %ext_src/bench/bank_conflicts/transpose-run.mlir | FileCheck %s --check-prefix=AGREE
// AGREE-NOT: DIFFER
// AGREE: compare: all sites agree

// The transposing tile, measured: 32-way at the column read.
// RUN: ext-run --bank-conflicts %ext_src/bench/bank_conflicts/transpose-run.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=T
// T: ext-emu: bank conflicts: kernel 'transpose_kernel': {{[0-9]+}} requests, {{[0-9]+}} wavefronts, conflict ratio {{[0-9.]+}}, worst 32-way
// T-DAG: worst  1-way  at {{.*}}transpose-run.mlir:{{[0-9]+}}:{{[0-9]+}} (copy of input 0 into shared memory)
// T-DAG: worst 32-way  at {{.*}}transpose-run.mlir:{{[0-9]+}}:{{[0-9]+}} (tile compute)

// --bank-conflicts is a CPU emulator flag.
// RUN: not ext-run --target=cuda --bank-conflicts %ext_src/bench/bank_conflicts/transpose-run.mlir 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: --bank-conflicts needs --target=cpu
