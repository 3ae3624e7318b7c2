// With the barrier after the shared-memory copies dropped (a debugging option
// of ext-tile-ops-to-threads), the emulator's interleaving lets threads read tiles
// before the other threads have written them: the GEMM is wrong, and this test
// asserts that it is (the error is not 0).
// RUN: ext-run --drop-barrier=0 %ext_src/examples/kernels/gemm_f32.mlir | FileCheck %s
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NOT: [0]
// CHECK-NEXT: [{{(nan|-?[1-9][0-9.e+]*)}}]
