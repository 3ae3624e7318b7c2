// A cluster size on the launch is the same feature, checked on host code.
func.func @launch_with_clusters() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-error @below {{'gpu.launch' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c1, %ny = %c1, %nz = %c1) {
    gpu.terminator
  }
  return
}
