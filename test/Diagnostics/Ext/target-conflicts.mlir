// A chip is never changed half-way: a pass's chip= and ext-set-target must
// agree with the module's #ext.target.
// RUN: ext-opt %s --ext-set-target="chip=sm_80" --verify-diagnostics
// RUN: not ext-opt %s --ext-apply-schedule="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not ext-opt %s --ext-set-target="chip=volta" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// expected-error @+1 {{ext-set-target: the module is already for #ext.target<chip = "sm_90">, not chip sm_80}}
module attributes {ext.target = #ext.target<chip = "sm_90">} {
}
// PASS: ext-apply-schedule: chip=gfx942 contradicts the module's #ext.target<chip = "sm_90">; give the same chip or drop the option
// UNKNOWN: target chip 'volta' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)
