// RUN: ext-opt %s --ext-gpu-reuse-shared-memory --verify-diagnostics | FileCheck %s
// RUN: ext-opt %s --ext-gpu-reuse-shared-memory=drop-hazard-barriers=true | FileCheck %s --check-prefix=DROP

// A workgroup buffer of dynamic size is left alone with a remark; the two
// static ones are still packed (and share, with a barrier between them).
// CHECK-LABEL: func @dynamic_left_alone
// CHECK:       workgroup(%[[M:.*]] : memref<256xi8, #gpu.address_space<workgroup>>)
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32, #gpu.address_space<workgroup>>
// CHECK:         gpu.barrier
// DROP-LABEL: func @dynamic_left_alone
// DROP-NOT:   gpu.barrier
func.func @dynamic_left_alone(%n: index, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%A : memref<64xf32, #gpu.address_space<workgroup>>, %B : memref<64xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    // expected-remark @+1 {{ext-gpu-reuse-shared-memory: leaving 'memref<?xf32, #gpu.address_space<workgroup>>' alone: its size is not static}}
    %D = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %f, %D[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %f, %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %a, %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
