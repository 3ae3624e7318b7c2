// ext-alloc-shared-to-workgroup on its own: each ext.alloc_shared becomes a
// flat workgroup attribution of its kernel, of the padded size, viewed
// through a memref.reinterpret_cast with the op's strides.
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-alloc-shared-to-workgroup | FileCheck %s

// Rows of 16 floats with storage_align (factor 32, offset 1): TVM's rule
// pads the row stride by (32 + 1 - 16 % 32) % 32 = 17 to 33, so the
// attribution holds 8 * 33 = 264 elements.
// CHECK-LABEL: func @padded
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[W:.*]] : memref<264xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[V:.*]] = memref.reinterpret_cast %[[W]] to offset: [0], sizes: [8, 16], strides: [33, 1]
// CHECK-SAME:        to memref<8x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
// CHECK:           memref.store %{{.*}}, %[[V]]
// CHECK-NOT:     ext.alloc_shared
func.func @padded(%x: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]} : memref<8x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    memref.store %x, %s[%c0, %c0] : memref<8x16xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Without storage_align: the row-major size; two buffers, two attributions,
// in order, after the one the launch already has.
// CHECK-LABEL: func @two_buffers
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[OLD:.*]] : memref<4xi32, #gpu.address_space<workgroup>>, %[[A:.*]] : memref<12xf16, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:           memref.reinterpret_cast %[[A]] to offset: [0], sizes: [3, 4], strides: [4, 1]
// CHECK:           memref.reinterpret_cast %[[B]] to offset: [0], sizes: [8], strides: [1]
func.func @two_buffers() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) workgroup(%old : memref<4xi32, #gpu.address_space<workgroup>>) {
    %a = ext.alloc_shared : memref<3x4xf16, #gpu.address_space<workgroup>>
    %b = ext.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// In an outlined kernel, the gpu.func gets the attribution.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME:    workgroup(%[[W:.*]] : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK:         memref.reinterpret_cast %[[W]] to offset: [0], sizes: [4, 16], strides: [16, 1]
gpu.module @kernels {
  gpu.func @kernel() kernel {
    %s = ext.alloc_shared : memref<4x16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

func.func @outside_a_kernel() {
  // expected-error @+1 {{'ext.alloc_shared' op must be inside a gpu.launch or gpu.func to get workgroup memory}}
  %s = ext.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
  return
}
