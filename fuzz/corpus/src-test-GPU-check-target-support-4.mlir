// An NVVM op already in a kernel needs the SM version it declares.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @nvvm_cluster_sreg() kernel {
      // expected-error @below {{'nvvm.read.ptx.sreg.clusterid.x' op needs sm_90 or later; the target is sm_80}}
      %c = nvvm.read.ptx.sreg.clusterid.x : i32
      gpu.return
    }
  }
}
