// The emulator's MFMA tests are ordinary kernels: ext-gpu-pipeline takes them
// to HSACO (gfx942, gfx90a) with the v_mfma instruction each one names.
// RUN: ext-opt %S/../../Emulator/mfma-32x32x8-f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.32x32x8.hsaco
// RUN: llvm-objdump -d %t.32x32x8.hsaco | FileCheck %s --check-prefix=F16-32
// RUN: ext-opt %S/../../Emulator/mfma-16x16x16-f16.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.16x16x16.hsaco
// RUN: llvm-objdump -d %t.16x16x16.hsaco | FileCheck %s --check-prefix=F16-16
// RUN: ext-opt %S/../../Emulator/mfma-32x32x2-f32.mlir --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.32x32x2.hsaco
// RUN: llvm-objdump -d %t.32x32x2.hsaco | FileCheck %s --check-prefix=F32

// F16-32: v_mfma_f32_32x32x8_f16
// F16-16: v_mfma_f32_16x16x16_f16
// gfx90a spells it without the last underscore.
// F32: v_mfma_f32_32x32x2f32
