// ext-run --entry runs a function that takes memrefs, with seeded random,
// .npy or zero inputs, and prints or saves what it wrote.
// RUN: rm -rf %t && mkdir -p %t
// @iota writes 8i + j; saved as .npy it becomes the input of @axpy, whose
// output (2x + x = 3x) is exact.
// RUN: ext-run --entry=iota --print-outputs --save-outputs=%t/iota %S/Inputs/entry-kernels.mlir | FileCheck %s --check-prefix=IOTA
// RUN: ext-run --entry=axpy --inputs=%t/iota/arg0.npy,%t/iota/arg0.npy --print-outputs --save-outputs=%t/axpy %S/Inputs/entry-kernels.mlir | FileCheck %s --check-prefix=AXPY
// A file the run wrote reads back as the same numbers.
// RUN: ext-run --entry=axpy --inputs=%t/axpy/arg2.npy,%t/iota/arg0.npy --print-outputs %S/Inputs/entry-kernels.mlir | FileCheck %s --check-prefix=AGAIN
// Random inputs: the same seed gives the same numbers, another seed others.
// RUN: ext-run --entry=axpy --random-inputs=7 --print-outputs %S/Inputs/entry-kernels.mlir > %t/seed7a
// RUN: ext-run --entry=axpy --random-inputs=7 --print-outputs %S/Inputs/entry-kernels.mlir > %t/seed7b
// RUN: ext-run --entry=axpy --random-inputs=8 --print-outputs %S/Inputs/entry-kernels.mlir > %t/seed8
// RUN: diff %t/seed7a %t/seed7b
// RUN: not diff %t/seed7a %t/seed8
// RUN: FileCheck %s --check-prefix=RANDOM < %t/seed7a
// Integers and a 0-d memref: 3 random values in [-8, 8] summed.
// RUN: ext-run --entry=count --random-inputs=3 --print-outputs %S/Inputs/entry-kernels.mlir | FileCheck %s --check-prefix=COUNT
// Zeros without inputs: the output stays zeros, and is still the output
// (the function writes it): printed and saved; the inputs are not.
// RUN: ext-run --entry=axpy --print-outputs --save-outputs=%t/zeros %S/Inputs/entry-kernels.mlir | FileCheck %s --check-prefix=ZEROS
// RUN: ls %t/zeros | FileCheck %s --check-prefix=ZEROFILES

// IOTA: %arg0 = memref<4x8xf32> {{\[}}[0, 1, 2, 3, 4, 5, 6, 7],
// IOTA-NEXT: [8, 9, 10, 11, 12, 13, 14, 15],
// IOTA-NEXT: [16, 17, 18, 19, 20, 21, 22, 23],
// IOTA-NEXT: [24, 25, 26, 27, 28, 29, 30, 31]]
// AXPY-NOT: %arg0
// AXPY-NOT: %arg1
// AXPY: %arg2 = memref<4x8xf32> {{\[}}[0, 3, 6, 9, 12, 15, 18, 21],
// AXPY: [72, 75, 78, 81, 84, 87, 90, 93]]
// AGAIN: %arg2 = memref<4x8xf32> {{\[}}[0, 7, 14, 21, 28, 35, 42, 49],
// RANDOM: %arg2 = memref<4x8xf32> {{\[}}[{{-?[0-9.]+}}, {{-?[0-9.]+}},
// COUNT: %arg1 = memref<i32> {{-?[0-9]+}}
// ZEROS-NOT: %arg0
// ZEROS-NOT: %arg1
// ZEROS: %arg2 = memref<4x8xf32> {{\[}}[0, 0, 0, 0, 0, 0, 0, 0],
// ZEROS-NOT: the run changed no argument
// ZEROFILES-NOT: arg0.npy
// ZEROFILES: arg2.npy

// Errors: the argument and the file named.
// RUN: not ext-run --entry=axpy --inputs=%t/iota/arg0.npy,%t/does-not-exist.npy %S/Inputs/entry-kernels.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: entry-kernels.mlir:4:{{[0-9]+}}: error: argument 1 ('memref<4x8xf32>'): '{{.*}}does-not-exist.npy' cannot be read
// RUN: not ext-run --entry=count --inputs=%t/iota/arg0.npy %S/Inputs/entry-kernels.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: argument 0 ('memref<3xi32>'): '{{.*}}arg0.npy' holds dtype <f4; the argument needs <i4
// RUN: not ext-run --entry=scalar --random-inputs=1 %S/Inputs/entry-kernels.mlir 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: error: argument 0 of @scalar is 'f32'; ext-run fills memrefs with the identity layout
// RUN: not ext-run --entry=iota --random-inputs=x %S/Inputs/entry-kernels.mlir 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: ext-run: error: --random-inputs must be a non-negative integer seed
// RUN: not ext-run --entry=iota --target=cuda %S/Inputs/entry-kernels.mlir 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: ext-run: error: --target=cuda runs functions without arguments; run @iota on --target=cpu
