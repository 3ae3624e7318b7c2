// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-pipeline="target=nvvm chip=sm_80"
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-pipeline="target=rocdl chip=gfx90a"
// RUN: ext-opt %s --split-input-file --ext-gpu-pipeline="target=nvvm chip=sm_90" | FileCheck %s
// Fuzzer finding: convert-gpu-to-nvvm lowered gpu.cluster_id for sm_80 to
// nvvm.read.ptx.sreg.clusterid.x, which does not verify there, so a pass of
// ext-gpu-pipeline left invalid IR. The pipeline now checks the chip first and
// reports at the op (ext-gpu-check-target-support).

// CHECK: llvm.func @k
// CHECK: nvvm.read.ptx.sreg.clusterid.x
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<1xindex>) kernel {
      // expected-error @below {{'gpu.cluster_id' op uses thread block clusters}}
      %c = gpu.cluster_id x
      %c0 = arith.constant 0 : index
      memref.store %c, %out[%c0] : memref<1xindex>
      gpu.return
    }
  }
}
