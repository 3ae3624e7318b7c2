// RUN: ext-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(ext-gpu-wgmma-asserts-to-traps))" | FileCheck %s

// A kernel with wgmma: its assert becomes a branch to a trap (no call to
// __assertfail, which would make ptxas serialize the wgmmas).
// CHECK-LABEL: gpu.func @with_wgmma
// CHECK-NOT:     cf.assert
// CHECK:         cf.cond_br %{{.*}}, ^[[OK:.*]], ^[[TRAP:.*]]
// CHECK:       ^[[TRAP]]:
// CHECK-NEXT:    llvm.intr.trap
// CHECK-NEXT:    llvm.unreachable
// CHECK:       ^[[OK]]:
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         gpu.return
gpu.module @k {
  gpu.func @with_wgmma(%x: i64) kernel {
    %c0 = arith.constant 0 : i64
    %ok = arith.cmpi eq, %x, %c0 : i64
    cf.assert %ok, "not aligned"
    nvvm.wgmma.fence.aligned
    gpu.return
  }
}

// -----

// Without wgmma the assert stays (its message reaches the user).
// CHECK-LABEL: gpu.func @without_wgmma
// CHECK:         cf.assert %{{.*}}, "not aligned"
// CHECK-NOT:     llvm.intr.trap
gpu.module @k {
  gpu.func @without_wgmma(%x: i64) kernel {
    %c0 = arith.constant 0 : i64
    %ok = arith.cmpi eq, %x, %c0 : i64
    cf.assert %ok, "not aligned"
    gpu.return
  }
}
