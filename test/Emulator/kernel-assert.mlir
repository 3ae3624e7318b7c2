// RUN: not ext-run %s 2>&1 | FileCheck %s
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_90" 2>/dev/null | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=PTX
// A kernel's cf.assert (ext's wgmma kernels assert their tiles' alignment)
// fails the launch on the emulator with its message, the thread and the
// op, as __assertfail stops the kernel on a GPU; threads whose condition
// holds pass it.
// CHECK: ext-emu: error: kernel 'main_kernel' (launched at {{.*}}kernel-assert.mlir:12:3): thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0): assertion failed at {{.*}}kernel-assert.mlir:16:5: tile misaligned
// PTX: __assertfail
func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c5 = arith.constant 5 : index
    %ok = arith.cmpi ult, %tx, %c5 : index
    cf.assert %ok, "tile misaligned"
    gpu.terminator
  }
  return
}
