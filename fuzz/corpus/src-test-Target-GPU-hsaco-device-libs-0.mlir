// A kernel calling a device-library function (math.sin -> __ocml_sin_f32)
// links Debian's ocml.bc (ROCm 5.2) for gfx90a and for gfx942 alike: MLIR
// defines the oclc control constants (ISA version, wave64, ...) itself, so
// no oclc_isa_version_942.bc is needed. The linked object calls nothing
// undefined.
// Without the bitcode folder the serializer says which path is missing.


func.func @sin(%X: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %X[%tx] : memref<64xf32>
    %e = math.sin %v : f32
    memref.store %e, %X[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
