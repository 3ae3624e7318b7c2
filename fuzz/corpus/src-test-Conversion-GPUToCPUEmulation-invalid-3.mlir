func.func @f(%n: index) {
  // expected-error @below {{'gpu.launch' op must be outlined first: run gpu-kernel-outlining before ext-gpu-to-cpu-emulation}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) {
    gpu.terminator
  }
  return
}
