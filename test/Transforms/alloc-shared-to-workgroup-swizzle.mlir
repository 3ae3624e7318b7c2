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

// Only element accesses can be rewritten: the tile ops must be lowered first.
func.func @unlowered_use(%A: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{uses a swizzled shared tile; only memref.load/store, vector.load/store, cp.async into it, ldmatrix from it, its address and selects among such tiles can be rewritten (run ext-tile-ops-to-threads first)}}
    %s = memref.subview %t[0, 0] [16, 16] [1, 1] : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// The stages of a pipelined k-loop: a select between two swizzled tiles
// becomes a select between their flat buffers. 16-byte cp.async into them
// and ldmatrix rows from them keep their width: the swizzle (base 3) moves
// whole 8-half chunks, and each run starts at a multiple of 8.
// CHECK-LABEL: func.func @stages
// CHECK: workgroup(%[[B0:.*]] : memref<2048xf16, #gpu.address_space<workgroup>>, %[[B1:.*]] : memref<2048xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[B0]], %[[B1]] : memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[SEL]][%{{.*}}], 8 :
// CHECK: arith.xori
// CHECK: nvgpu.ldmatrix %[[SEL]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2048xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: arith.xori
// CHECK: vector.load %[[SEL]][%{{.*}}] : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: ext.alloc_shared
func.func @stages(%g: memref<64x64xf16>, %p: i1) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t0 = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>}
        : memref<32x64xf16, #gpu.address_space<workgroup>>
    %t1 = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3>}
        : memref<32x64xf16, #gpu.address_space<workgroup>>
    %t = arith.select %p, %t0, %t1 : memref<32x64xf16, #gpu.address_space<workgroup>>
    %col = arith.muli %tx, %c8 : index
    %c = arith.remui %col, %c64 : index
    %tok = nvgpu.device_async_copy %g[%tx, %c], %t[%tx, %c], 8 : memref<64x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
    %f = nvgpu.ldmatrix %t[%tx, %c] {numTiles = 4 : i32, transpose = false} : memref<32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %v = vector.load %t[%tx, %c] : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.terminator
  }
  return
}

// -----

// A vector wider than the swizzle's chunks would be split by it.
func.func @vector_too_wide(%v: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 1, shift = 4>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{moves 4 contiguous elements of a shared tile swizzled by #ext.swizzle<bits = 3, base = 1, shift = 4>, which keeps runs of 2 together; the run must be a power of two that fits and starts at a multiple of its length}}
    vector.store %v, %t[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A vector whose start is not known to be aligned could straddle a chunk.
func.func @vector_unaligned(%v: vector<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 2, shift = 3>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{moves 4 contiguous elements of a shared tile swizzled by #ext.swizzle<bits = 3, base = 2, shift = 3>, which keeps runs of 4 together; the run must be a power of two that fits and starts at a multiple of its length (its start is not known to)}}
    vector.store %v, %t[%c0, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Column panels: a [16][128] tile as two [16][64] panels, one after the
// other; the panel of column j starts at (j / 64) * 16 * 64 = 1024 (j / 64).
// CHECK-LABEL: func.func @panels
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[P:.*]] = arith.divui %{{.*}}, %[[C64]] : index
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: %[[START:.*]] = arith.muli %[[P]], %[[C1024]] : index
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.addi %[[COL]], %[[START]] : index
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[O:.*]] = arith.addi %[[ROW]], %[[IN]] : index
// CHECK: arith.xori %[[O]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<2048xf16, #gpu.address_space<workgroup>>
func.func @panels(%v: f16) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>}
        : memref<16x128xf16, #gpu.address_space<workgroup>>
    memref.store %v, %t[%c3, %tx] : memref<16x128xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @panel_not_dividing() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{#ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64> cuts the innermost dimension into 64-element panels, but it has 96 elements}}
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>}
        : memref<16x96xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
