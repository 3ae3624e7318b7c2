// #ext.target: the module's chip, set once by ext-set-target (or written by
// the user) and read by every pass that needs a hardware fact.
// RUN: ext-opt %s --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: ext-opt %s --split-input-file --ext-set-target="chip=sm_90a" | FileCheck %s --check-prefix=SET

// A module for the same chip keeps its target (and its SM count).
// ROUNDTRIP-LABEL: module attributes {ext.target = #ext.target<chip = "sm_90a", sms = 114>}
// SET-LABEL: module attributes {ext.target = #ext.target<chip = "sm_90a", sms = 114>}
module attributes {ext.target = #ext.target<chip = "sm_90a", sms = 114>} {
}

// -----

// A module without a target gets the pass's chip; the SM count stays the
// chip's (sms omitted).
// ROUNDTRIP-LABEL: module {
// SET-LABEL: module attributes {ext.target = #ext.target<chip = "sm_90a">}
module {
}
