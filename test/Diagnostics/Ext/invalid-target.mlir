// RUN: ext-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{target chip 'volta' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)}}
module attributes {ext.target = #ext.target<chip = "volta">} {}

// -----

// expected-error @+1 {{target sms must be an SM count in [1, 2147483647] (0: the chip's), got -1}}
module attributes {ext.target = #ext.target<chip = "sm_80", sms = -1>} {}

// -----

// expected-error @+1 {{'ext.target' must be an #ext.target, got "sm_80"}}
module attributes {ext.target = "sm_80"} {}

// -----

module {
  // expected-error @+1 {{'ext.target' belongs on a builtin.module}}
  func.func @f() attributes {ext.target = #ext.target<chip = "sm_80">} { return }
}

// -----

// expected-error @+1 {{target sms must be an SM count in [1, 2147483647] (0: the chip's), got 4294967296}}
module attributes {ext.target = #ext.target<chip = "sm_80", sms = 4294967296>} {}
