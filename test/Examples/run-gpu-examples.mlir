// Every GPU example runs its scheduled kernels on the CPU emulator (ragged
// shapes, edge tiles included) and prints max |kernel - reference|: exactly
// 0 where the inputs are small integers, below 1e-6 for the softmax.
// RUN: ext-run %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run %ext_src/examples/kernels/gemm_f16.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run %ext_src/examples/kernels/gemv.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run %ext_src/examples/kernels/softmax.mlir | FileCheck %s --check-prefix=CLOSE
// RUN: ext-run %ext_src/examples/kernels/conv2d_padded.mlir | FileCheck %s --check-prefix=EXACT
// The same with shared-memory reuse off: the same numbers.
// RUN: ext-run --reuse-shared-memory=false %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --reuse-shared-memory=false %ext_src/examples/kernels/gemv.mlir | FileCheck %s --check-prefix=EXACT
// Another interleaving of the threads: the same numbers.
// RUN: ext-run --emu-seed=7 %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=EXACT
// The GEMMs stage their output through a shared tile that reuse packs over
// the k-loop tiles (in Stream-K's persistent loop too): the same numbers with
// reuse on and off, under other seeds.
// RUN: ext-run --reuse-shared-memory=false --emu-seed=5 %ext_src/examples/kernels/gemm_f16.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --emu-seed=11 %ext_src/examples/kernels/gemm_f16.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --reuse-shared-memory=false --emu-seed=5 %ext_src/examples/kernels/gemm_streamk.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --emu-seed=11 %ext_src/examples/kernels/gemm_streamk.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --reuse-shared-memory=false --emu-seed=5 %ext_src/examples/kernels/gemm_splitk.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --emu-seed=11 %ext_src/examples/kernels/gemm_splitk.mlir | FileCheck %s --check-prefix=EXACT

// The kernels really are emulated GPU code, not the reference loops.
// RUN: ext-run --print-lowered %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s --check-prefix=EMULATED

// EXACT: rank = 0 offset = 0 sizes = [] strides = [] data =
// EXACT-NEXT: [0]
// CLOSE: rank = 1 offset = 0 sizes = [1] strides = [1] data =
// CLOSE-NEXT: [1]
// EMULATED-DAG: llvm.call @__ext_emu_launch
// EMULATED-DAG: llvm.call @__ext_emu_barrier

// The Stream-K and split-K examples: the fixup's workspace, flags and
// combine give the reference's numbers, under other seeds too.
// RUN: ext-run %ext_src/examples/kernels/gemm_streamk.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run --emu-seed=3 %ext_src/examples/kernels/gemm_streamk.mlir | FileCheck %s --check-prefix=EXACT
// RUN: ext-run %ext_src/examples/kernels/gemm_splitk.mlir | FileCheck %s --check-prefix=EXACT
