// --ext-to-ptx / --ext-to-hsaco diagnose inputs they cannot serialize.


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
