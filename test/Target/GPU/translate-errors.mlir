// --ext-to-ptx / --ext-to-hsaco diagnose inputs they cannot serialize.
// RUN: split-file %s %t
// RUN: not ext-translate --ext-to-ptx %t/no-module.mlir 2>&1 | FileCheck %s --check-prefix=NOMODULE
// RUN: not ext-translate --ext-to-ptx %t/no-target.mlir 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not ext-translate --ext-to-hsaco %t/nvvm-only.mlir 2>&1 | FileCheck %s --check-prefix=WRONGKIND
// RUN: not ext-translate --ext-to-ptx %t/two.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: ext-translate --ext-to-ptx --ext-gpu-module=b %t/two.mlir | FileCheck %s --check-prefix=PICK
// RUN: not ext-translate --ext-to-ptx --ext-gpu-module=c %t/two.mlir 2>&1 | FileCheck %s --check-prefix=NONAME

// NOMODULE: error: no gpu.module to make PTX from; lower gpu.launch kernels with ext-opt --ext-gpu-pipeline first
// NOTARGET: error: gpu.module @k has no #nvvm.target to make PTX from; lower it with ext-opt --ext-gpu-pipeline="target=nvvm chip=..."
// WRONGKIND: error: gpu.module @k has no #rocdl.target to make HSACO from; lower it with ext-opt --ext-gpu-pipeline="target=rocdl chip=..."
// TWO: error: 2 gpu.modules, but one PTX output holds one; choose with --ext-gpu-module=NAME: @a @b
// PICK: .visible .entry kb(
// PICK-NOT: .entry ka(
// NONAME: error: no gpu.module named 'c'

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
