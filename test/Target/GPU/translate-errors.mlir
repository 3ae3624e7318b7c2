// --ext-to-ptx / --ext-to-hsaco diagnose inputs they cannot serialize.
// RUN: split-file %s %t
// RUN: not ext-translate --ext-to-ptx %t/no-module.mlir 2>&1 | FileCheck %s --check-prefix=NOMODULE
// RUN: not ext-translate --ext-to-ptx %t/no-target.mlir 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not ext-translate --ext-to-hsaco %t/nvvm-only.mlir 2>&1 | FileCheck %s --check-prefix=WRONGKIND
// RUN: not ext-translate --ext-to-ptx %t/two.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: ext-translate --ext-to-ptx --ext-gpu-module=b %t/two.mlir | FileCheck %s --check-prefix=PICK
// RUN: not ext-translate --ext-to-ptx --ext-gpu-module=c %t/two.mlir 2>&1 | FileCheck %s --check-prefix=NONAME
// The real cause when there is no kernel: an unlowered launch or compute, a
// compute without a schedule, or a lowered module whose computes had none.
// RUN: not ext-translate --ext-to-ptx %t/launch.mlir 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not ext-translate --ext-to-hsaco %t/unscheduled.mlir 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// RUN: ext-opt %t/unscheduled.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" 2>&1 >%t/lowered.mlir | FileCheck %s --check-prefix=REMARK
// RUN: not ext-translate --ext-to-ptx %t/lowered.mlir 2>&1 | FileCheck %s --check-prefix=LOWERED
// All kernels at once: one file per gpu.module, the paths listed.
// RUN: rm -rf %t/ptx && ext-translate --ext-to-ptx --ext-output-dir=%t/ptx %t/two.mlir | FileCheck %s --check-prefix=ALL
// RUN: FileCheck %s --check-prefix=ALL-A < %t/ptx/a.ptx
// RUN: FileCheck %s --check-prefix=ALL-B < %t/ptx/b.ptx
// RUN: not ext-translate --ext-to-ptx --ext-output-dir=%t/none %t/no-module.mlir 2>&1 | FileCheck %s --check-prefix=NOMODULE

// An error is its message and location, never a dump of the module after it.
// NOMODULE: no-module.mlir:{{[0-9]+:[0-9]+}}: error: the input holds no GPU kernel to make PTX from: ext-gpu-pipeline makes a kernel of each scheduled ext.compute (and gpu.launch), and lowers an ext.compute without a schedule to loops in the host code (it names each one with a remark)
// NOMODULE-NOT: see current operation
// NOMODULE-NOT: "builtin.module"
// NOTARGET: error: gpu.module @k has no #nvvm.target to make PTX from; lower it with ext-opt --ext-gpu-pipeline="target=nvvm chip=..."
// WRONGKIND: error: gpu.module @k has no #rocdl.target to make HSACO from; lower it with ext-opt --ext-gpu-pipeline="target=rocdl chip=..."
// TWO: error: 2 gpu.modules, but one PTX output holds one; choose one with --ext-gpu-module=NAME or write them all with --ext-output-dir=DIR: @a @b
// TWO-NOT: see current operation
// TWO-NOT: gpu.module @a
// PICK: .visible .entry kb(
// PICK-NOT: .entry ka(
// NONAME: error: no gpu.module named 'c'
// LAUNCH: launch.mlir:3:3: error: this kernel has not been lowered: run ext-opt --ext-gpu-pipeline="target=nvvm chip=..." first, then translate its output
// UNSCHEDULED: unscheduled.mlir:2:3: error: this ext.compute has no schedule, so it is not a GPU kernel and there is nothing to make HSACO from: attach a #ext.schedule to it
// REMARK: unscheduled.mlir:2:3: remark: this ext.compute has no schedule: it becomes loops in the host code of @scale, not a GPU kernel (attach a #ext.schedule to make it one)
// LOWERED: error: the input holds no GPU kernel to make PTX from
// ALL: {{.*}}ptx{{/|\\}}a.ptx
// ALL-NEXT: {{.*}}ptx{{/|\\}}b.ptx
// ALL-A: .visible .entry ka(
// ALL-B: .visible .entry kb(

//--- no-module.mlir
func.func @f() {
  return
}

//--- no-target.mlir
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

//--- nvvm-only.mlir
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

//--- two.mlir
module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_80">] {
    llvm.func @ka() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @b [#nvvm.target<chip = "sm_80">] {
    llvm.func @kb() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

//--- launch.mlir
func.func @f() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

//--- unscheduled.mlir
func.func @scale(%A: memref<64xf32>, %B: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%A : memref<64xf32>) outs(%B : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%a: f32):
    %p = arith.addf %a, %a : f32
    ext.yield %p : f32
  }
  return
}
