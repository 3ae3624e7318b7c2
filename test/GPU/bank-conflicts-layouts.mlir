// RUN: ext-opt %s --split-input-file --ext-alloc-shared-to-workgroup --ext-gpu-bank-conflicts --verify-diagnostics
// The column read of a 32x32 f32 tile through the layouts ext.alloc_shared
// offers: none (32-way), storage_align factor 32 offset 1 (rows of 33
// floats) and an XOR swizzle of the row into the column (no padding); the
// row-wise write that fills the tile stays conflict-free in all three.

func.func @none() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 4*tid.x}}
    memref.store %f, %t[%c0, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{32-way bank conflict: 32 wavefronts per warp for 4-byte accesses at byte 128*tid.x}}
    %v = memref.load %t[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @padded() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}
        : memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 4*tid.x}}
    memref.store %f, %t[%c0, %tx] : memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 132*tid.x}}
    %v = memref.load %t[%tx, %c0] : memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @swizzled() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = ext.alloc_shared {swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 4*(tid.x xor ((tid.x floordiv 32) and 31))}}
    memref.store %f, %t[%c0, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 4*((32*tid.x) xor (tid.x and 31))}}
    %v = memref.load %t[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// An f16 tile read as 16-byte vectors down a column of 64-half rows: each
// quarter-warp's 8 lanes hit the same 4 banks.
func.func @swizzled_f16_vectors() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%plain : memref<32x64xf16, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{8-way bank conflict: 32 wavefronts per warp for 16-byte accesses at byte 128*tid.x}}
    %v = vector.load %plain[%tx, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.terminator
  }
  return
}
