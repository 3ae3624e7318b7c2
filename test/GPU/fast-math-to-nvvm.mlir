// RUN: ext-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(ext-gpu-fast-math-to-nvvm))' | FileCheck %s

// afn f32 ops to the approximate PTX instructions: ex2.approx.ftz,
// rcp.approx.ftz (times the dividend unless it is 1), rsqrt.approx.ftz,
// tanh.approx (sm_75 and later). Ops without afn stay.
// CHECK-LABEL: llvm.func @approx
// CHECK:         %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%arg0) : (f32) -> f32
// CHECK:         %[[R:.*]] = nvvm.rcp.approx.ftz.f %arg1 : f32
// CHECK:         %[[R2:.*]] = nvvm.rcp.approx.ftz.f %arg1 : f32
// CHECK:         arith.mulf %arg0, %[[R2]] fastmath<contract> : f32
// CHECK:         llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"(%arg1) : (f32) -> f32
// CHECK:         llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %arg0 : (f32) -> f32
// CHECK:         math.exp2 %arg1 : f32
// CHECK:         arith.divf %arg0, %arg1 : f32
gpu.module @m [#nvvm.target<chip = "sm_80">] {
  llvm.func @approx(%a: f32, %b: f32) {
    %one = arith.constant 1.0 : f32
    %0 = math.exp2 %a fastmath<afn> : f32
    %1 = arith.divf %one, %b fastmath<afn> : f32
    %2 = arith.divf %a, %b fastmath<afn> : f32
    %3 = math.rsqrt %b fastmath<afn> : f32
    %4 = math.tanh %a fastmath<afn> : f32
    %5 = math.exp2 %b : f32
    %6 = arith.divf %a, %b : f32
    llvm.return
  }
}

// -----

// Before sm_75 there is no tanh.approx: libdevice's tanhf stays.
// CHECK-LABEL: llvm.func @old
// CHECK:         math.tanh %arg0 fastmath<afn> : f32
gpu.module @m [#nvvm.target<chip = "sm_70">] {
  llvm.func @old(%a: f32) {
    %0 = math.tanh %a fastmath<afn> : f32
    llvm.return
  }
}
