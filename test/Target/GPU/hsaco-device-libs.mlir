// A kernel calling a device-library function (math.sin -> __ocml_sin_f32)
// links Debian's ocml.bc (ROCm 5.2) for gfx90a and for gfx942 alike: MLIR
// defines the oclc control constants (ISA version, wave64, ...) itself, so
// no oclc_isa_version_942.bc is needed. The linked object calls nothing
// undefined.
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx90a" | FileCheck %s --check-prefix=IR
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx90a" | ext-translate --ext-to-hsaco -o %t.90a.hsaco
// RUN: llvm-readelf --symbols %t.90a.hsaco | FileCheck %s --implicit-check-not=__ocml --implicit-check-not=UND{{.*}}{{[a-z]}}
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.942.hsaco
// RUN: llvm-readelf --symbols %t.942.hsaco | FileCheck %s --implicit-check-not=__ocml --implicit-check-not=UND{{.*}}{{[a-z]}}
// Without the bitcode folder the serializer says which path is missing.
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" | not ext-translate --ext-to-hsaco --ext-rocm-path=%t.nowhere -o %t.bad.hsaco 2>&1 | FileCheck %s --check-prefix=MISSING

// IR: llvm.call @__ocml_sin_f32
// CHECK: FUNC GLOBAL PROTECTED {{.*}} sin_kernel{{$}}
// MISSING: error: {{.*}}nowhere{{.*}}

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
