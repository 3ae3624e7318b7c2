// RUN: ext-opt %s --split-input-file --ext-gpu-dynamic-shared-memory=chip=sm_90 | FileCheck %s
// RUN: ext-opt %s --split-input-file --ext-gpu-dynamic-shared-memory=chip=gfx942 | FileCheck %s --check-prefix=AMD
// Workgroup buffers above the 48 KB an NVIDIA kernel may declare statically
// become views of dynamic shared memory, sized at launch.

// 40 KB + 24 KB: the second buffer starts at 40960 (16-byte aligned); the
// launch asks for 65536 bytes.
// CHECK-LABEL: func @over_48k
// CHECK:         %[[SIZE:.*]] = arith.constant 65536 : i32
// CHECK:         gpu.launch
// CHECK-SAME:      dynamic_shared_memory_size %[[SIZE]]
// CHECK-NOT:       workgroup(
// CHECK:           %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[A:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10240xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[B:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6144xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.store %{{.*}}, %[[A]]
// CHECK:           memref.store %{{.*}}, %[[B]]
// AMD-LABEL: func @over_48k
// AMD:         workgroup(
// AMD-NOT:     gpu.dynamic_shared_memory
func.func @over_48k() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<10240xf32, #gpu.address_space<workgroup>>,
                       %b : memref<6144xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<10240xf32, #gpu.address_space<workgroup>>
    memref.store %f, %b[%tx] : memref<6144xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// The launch's own dynamic bytes come first: the buffer goes after them.
// CHECK-LABEL: func @after_own_dynamic
// CHECK:         %[[SIZE:.*]] = arith.constant 65552 : i32
// CHECK:         dynamic_shared_memory_size %[[SIZE]]
// CHECK:         %[[AT:.*]] = arith.constant 16 : index
// CHECK:         memref.view %{{.*}}[%[[AT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
func.func @after_own_dynamic() {
  %c1 = arith.constant 1 : index
  %own = arith.constant 12 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %own
             workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<16384xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// 48 KB exactly stays static.
// CHECK-LABEL: func @at_48k
// CHECK:         workgroup(%{{.*}} : memref<12288xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:     gpu.dynamic_shared_memory
func.func @at_48k() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<12288xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<12288xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Beyond sm_90's 227 KB per block nothing helps: left static, for
// ext-gpu-check-resource-limits to report with the buffers named.
// CHECK-LABEL: func @beyond_the_block_limit
// CHECK:         workgroup(%{{.*}} : memref<65536xf32, #gpu.address_space<workgroup>>)
func.func @beyond_the_block_limit() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<65536xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<65536xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
