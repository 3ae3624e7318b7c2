// RUN: ext-opt %s --split-input-file --ext-alloc-shared-to-workgroup --verify-diagnostics | FileCheck %s

// A swizzled tile becomes a flat attribution of its element count; every
// load and store goes through o ^ ((o >> shift) & mask) of the row-major
// offset o.
// CHECK-LABEL: func.func @swizzled
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<2048xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: %[[O:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[SH:.*]] = arith.shrui %[[O]], %[[C3]] : index
// CHECK: %[[MASK:.*]] = arith.constant 56 : index
// CHECK: %[[BITS:.*]] = arith.andi %[[SH]], %[[MASK]] : index
// CHECK: %[[AT:.*]] = arith.xori %[[O]], %[[BITS]] : index
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[AT]]] : memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK: arith.xori
// CHECK: memref.load %[[BUF]][%{{.*}}] : memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: ext.alloc_shared
func.func @swizzled(%v: f16) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // CUTLASS's Swizzle<3, 3, 3> on 64-half rows: 8-half chunks permuted
    // by the row.
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>}
        : memref<32x64xf16, #gpu.address_space<workgroup>>
    memref.store %v, %t[%tx, %c3] : memref<32x64xf16, #gpu.address_space<workgroup>>
    %w = memref.load %t[%c3, %tx] : memref<32x64xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Only loads and stores can be rewritten: the tile ops must be lowered first.
func.func @unlowered_use(%A: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{uses a swizzled shared tile; only memref.load and memref.store of it can be rewritten (run ext-tile-ops-to-threads first)}}
    %s = memref.subview %t[0, 0] [16, 16] [1, 1] : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
