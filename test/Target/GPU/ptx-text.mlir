// --ext-to-ptx writes the PTX text of the one gpu.module: the entry point,
// shared memory, barriers, shuffles, atomics, f16 arithmetic.
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=MATMUL
// RUN: ext-opt %S/../../GPU/Inputs/row-sum.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=ROWSUM
// The file is plain text: the NUL the driver wants is not written.
// RUN: ext-opt %S/../../GPU/Inputs/matmul.mlir --ext-gpu-pipeline=target=nvvm | ext-translate --ext-to-ptx -o %t.ptx
// RUN: not grep -qaP '\x00' %t.ptx
// RUN: ext-opt %S/../../GPU/Inputs/axpy-f16.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=F16

// MATMUL: .version {{[0-9]+\.[0-9]+}}
// MATMUL: .target sm_90
// MATMUL: .visible .entry matmul_kernel(
// MATMUL: .maxntid 16, 16, 1
// MATMUL: st.shared.b32
// MATMUL: bar.sync 0;
// MATMUL: ld.shared
// MATMUL: bar.sync 0;

// ROWSUM: .target sm_80
// ROWSUM: .visible .entry row_sum_kernel(
// ROWSUM: shfl.sync.bfly.b32
// ROWSUM: bar.sync 0;
// ROWSUM: atom.global.add.f32

// F16: .visible .entry axpy_f16_kernel(
// F16: ld.global.b16
// F16: mul.rn.f16
// F16: add.rn.f16
// F16: st.global.b16
// F16: cvt.f32.f16
