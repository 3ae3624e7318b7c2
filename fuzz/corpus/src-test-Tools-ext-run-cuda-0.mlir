// ext-run --target=cuda without a driver says so and fails; with the fake
// driver (test/Tools/FakeCuda: host memory, a "kernel" that writes 42 into
// the device buffers it is given) the whole path runs: lowering, PTX handed
// to the driver's JIT, staging copies, launch, copy back, per-launch timing.



// Lowering happens before the driver check: --print-lowered works anywhere.


// An unknown chip is the pipeline's error.
