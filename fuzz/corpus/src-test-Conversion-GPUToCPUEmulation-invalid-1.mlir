module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      // expected-error @below {{'nvvm.read.ptx.sreg.tid.x' op is specific to one GPU target and cannot run on the CPU emulation}}
      %t = nvvm.read.ptx.sreg.tid.x : i32
      gpu.printf "%d", %t : i32
      gpu.return
    }
  }
}
