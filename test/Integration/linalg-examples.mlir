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
// RUN: ext-opt %ext_src/examples/linalg/matmul.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco -o %t.mm.hsaco
// RUN: llvm-readelf --symbols %t.mm.hsaco | FileCheck %s --check-prefix=MM-HSACO
// MM-HSACO: FUNC GLOBAL PROTECTED {{.*}} matmul_kernel{{$}}
// RUN: ext-opt %ext_src/examples/linalg/softmax.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco -o %t.sm.hsaco
// RUN: llvm-readelf --symbols %t.sm.hsaco | FileCheck %s --check-prefix=SM-HSACO
// SM-HSACO: FUNC GLOBAL PROTECTED {{.*}} softmax_kernel{{$}}
