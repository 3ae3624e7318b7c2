// The linalg examples run on the emulator (their scripts import and
// schedule them) and print their checks: max |C - reference| for the
// matmul, 1 for a softmax within 1e-6 of its reference; both also compile
// to an HSACO holding their one kernel. The PTX half is in linalg-ptx.mlir.
//
// RUN: ext-run %ext_src/examples/linalg/matmul.mlir 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: data =
// MATMUL-NEXT: [0]
// RUN: ext-run %ext_src/examples/linalg/softmax.mlir 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: data =
// SOFTMAX-NEXT: [1]
//
// Those references are the same linalg ops, converted by the same
// ext-from-linalg: an op it got wrong would be wrong in both. So each
// kernel also runs on .npy inputs (the softmax through a wrapper that
// writes its result into an argument) against numpy.
// RUN: rm -rf %t.np && mkdir -p %t.np
// RUN: %python %S/Inputs/linalg-numpy.py inputs matmul %t.np
// RUN: ext-run --entry=matmul --inputs=%t.np/a.npy,%t.np/b.npy --save-outputs=%t.np/out %ext_src/examples/linalg/matmul.mlir
// RUN: %python %S/Inputs/linalg-numpy.py check matmul %t.np | FileCheck %s --check-prefix=MATMUL-NP
// MATMUL-NP: matmul: matches numpy (exactly)
// RUN: rm -rf %t.np && mkdir -p %t.np
// RUN: cat %ext_src/examples/linalg/softmax.mlir %S/Inputs/linalg-softmax-into.mlir > %t.np/softmax.mlir
// RUN: %python %S/Inputs/linalg-numpy.py inputs softmax %t.np
// RUN: ext-run --entry=softmax_into --inputs=%t.np/x.npy --save-outputs=%t.np/out %t.np/softmax.mlir
// RUN: %python %S/Inputs/linalg-numpy.py check softmax %t.np | FileCheck %s --check-prefix=SOFTMAX-NP
// SOFTMAX-NP: softmax: matches numpy (max relative error {{.*}} < 1e-05)
//
// RUN: ext-opt %ext_src/examples/linalg/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco -o %t.mm.hsaco
// RUN: llvm-readelf --symbols %t.mm.hsaco | FileCheck %s --check-prefix=MM-HSACO
// MM-HSACO: FUNC GLOBAL PROTECTED {{.*}} matmul_kernel{{$}}
// RUN: ext-opt %ext_src/examples/linalg/softmax.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco -o %t.sm.hsaco
// RUN: llvm-readelf --symbols %t.sm.hsaco | FileCheck %s --check-prefix=SM-HSACO
// SM-HSACO: FUNC GLOBAL PROTECTED {{.*}} softmax_kernel{{$}}
