// Invalid ext-gpu-pipeline options are diagnosed, never accepted or crashed on.
// RUN: not ext-opt %s --ext-gpu-pipeline=target=spirv 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not ext-opt %s --ext-gpu-pipeline="target=nvvm chip=gfx942" 2>&1 | FileCheck %s --check-prefix=NV-AMD
// RUN: not ext-opt %s --ext-gpu-pipeline="target=rocdl chip=sm_90" 2>&1 | FileCheck %s --check-prefix=AMD-NV
// RUN: not ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_1234" 2>&1 | FileCheck %s --check-prefix=NV-UNKNOWN
// RUN: not ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx940" 2>&1 | FileCheck %s --check-prefix=AMD-UNKNOWN
// RUN: not ext-opt %s --ext-gpu-pipeline="target=rocdl abi=300" 2>&1 | FileCheck %s --check-prefix=ABI
// RUN: not ext-opt %s --ext-gpu-pipeline="O=4" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not ext-opt %s --ext-gpu-pipeline="tagret=nvvm" 2>&1 | FileCheck %s --check-prefix=OPTION
// The same checks guard the textual form.
// RUN: not ext-opt %s --pass-pipeline="builtin.module(ext-gpu-pipeline{target=nvvm chip=gfx90a})" 2>&1 | FileCheck %s --check-prefix=NV-AMD
// RUN: not ext-opt %s --ext-gpu-host-pipeline="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT

// TARGET: error: ext-gpu-pipeline: unknown target 'spirv'; expected 'nvvm' or 'rocdl'
// NV-AMD: error: ext-gpu-pipeline: chip '{{gfx942|gfx90a}}' is not an NVIDIA chip; target=nvvm takes sm_NN (sm_80, sm_90, ...) (gfx chips need target=rocdl)
// AMD-NV: error: ext-gpu-pipeline: chip 'sm_90' is not an AMD chip; target=rocdl takes gfxNNN (gfx90a, gfx942, ...) (sm_ chips need target=nvvm)
// NV-UNKNOWN: error: ext-gpu-pipeline: LLVM's NVPTX back end does not know chip 'sm_1234'
// AMD-UNKNOWN: error: ext-gpu-pipeline: LLVM's AMDGPU back end does not know chip 'gfx940'
// ABI: error: ext-gpu-pipeline: abi must be 400, 500 or 600, not '300'
// OPT: error: ext-gpu-pipeline: O must be 0, 1, 2 or 3, not 4
// OPTION: no such option tagret
// FORMAT: error: ext-gpu-host-pipeline: format must be isa, bin or fatbin, not 'elf'

func.func @f() {
  return
}
