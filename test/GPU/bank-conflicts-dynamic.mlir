// RUN: ext-opt %s --ext-gpu-bank-conflicts=summary=true -o /dev/null 2>&1 | FileCheck %s
// A view with a dynamic row count (as the fuzzer writes them): its column
// is still 32-way, and it has no padding to report. The padding's
// arithmetic used to multiply the dynamic-size marker (INT64_MIN), signed
// overflow that UBSan reports and that printed 128 bytes of padding.
// CHECK: remark: 32-way bank conflict: 32 wavefronts per warp for 4-byte accesses at byte 128*tid.x
// CHECK: n-way wavefronts padding B  access        location
// CHECK-NEXT: {{^ +}}32         32         0  memref.load   bank-conflicts-dynamic.mlir:{{[0-9]+}}:10
func.func @dynamic_view(%n: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%bytes : memref<4096xi8, #gpu.address_space<workgroup>>) {
    %tile = memref.view %bytes[%c0][%n] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<?x32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %tile[%tx, %c0] : memref<?x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
