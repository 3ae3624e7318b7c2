// RUN: ext-opt %s --ext-subgroup-mma-to-lanes -split-input-file -verify-diagnostics
// Fragments the emulator's subgroup MMA distribution does not cover are
// errors naming the op.

func.func @shape(%m: memref<32x8xf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'gpu.subgroup_mma_load_matrix' op on '!gpu.mma_matrix<32x8xf16, "AOp">' is not supported by the CPU emulation (16x16 f16 operands, f16 or f32 accumulators)}}
  %a = gpu.subgroup_mma_load_matrix %m[%c0, %c0] {leadDimension = 8 : index} : memref<32x8xf16> -> !gpu.mma_matrix<32x8xf16, "AOp">
  return
}

// -----

func.func @transposed(%a: !gpu.mma_matrix<16x16xf16, "AOp">, %b: !gpu.mma_matrix<16x16xf16, "BOp">, %c: !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp"> {
  // expected-error @below {{'gpu.subgroup_mma_compute' op with a_transpose or b_transpose is not supported by the CPU emulation (load the operands with `transpose` instead)}}
  %d = gpu.subgroup_mma_compute %a, %b, %c {a_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  return %d : !gpu.mma_matrix<16x16xf32, "COp">
}
