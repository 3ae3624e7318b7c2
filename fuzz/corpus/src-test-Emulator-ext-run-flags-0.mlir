// ext-run's emulation flags are checked before anything runs, and so are the
// environment variables the runtime reads (for mlir-runner users).
// The same kernel also runs through mlir-runner with the runtime loaded.

func.func @main() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %n = gpu.block_dim x
    %first = arith.cmpi eq, %tx, %bx : index
    scf.if %first {
      gpu.printf "emulated %ld threads\n", %n : index
    }
    gpu.terminator
  }
  return
}
