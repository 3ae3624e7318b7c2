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

func.func @transposed(%m: memref<16x16xf16>, %b: !gpu.mma_matrix<16x16xf16, "BOp">, %c: !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp"> {
  %c0 = arith.constant 0 : index
  // expected-note @below {{loaded here}}
  %a = gpu.subgroup_mma_load_matrix %m[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
  // expected-error @below {{'gpu.subgroup_mma_compute' op has a_transpose but its A operand is loaded without `transpose`; the mma and the load must name the same layout}}
  %d = gpu.subgroup_mma_compute %a, %b, %c {a_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  return %d : !gpu.mma_matrix<16x16xf32, "COp">
}

// -----

func.func @untransposed(%a: !gpu.mma_matrix<16x16xf16, "AOp">, %m: memref<16x16xf16>, %c: !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp"> {
  %c0 = arith.constant 0 : index
  // expected-note @below {{loaded here}}
  %b = gpu.subgroup_mma_load_matrix %m[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
  // expected-error @below {{'gpu.subgroup_mma_compute' op lacks b_transpose but its B operand is loaded with `transpose`; the mma and the load must name the same layout}}
  %d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  return %d : !gpu.mma_matrix<16x16xf32, "COp">
}
