// RUN: ext-opt %s --split-input-file --ext-gpu-bank-conflicts --verify-diagnostics

// A 32x32 f32 tile read down a column: every lane in bank 0.
func.func @column_f32() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{32-way bank conflict: 32 wavefronts per warp for 4-byte accesses at byte 128*tid.x}}
    %v = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // A row: conflict-free.
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 4*tid.x}}
    memref.store %v, %tile[%c0, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// The same column with rows padded to 33 floats (storage_align factor 32
// offset 1, as ext-alloc-shared-to-workgroup lays it out): 32 different banks.
func.func @column_f32_padded() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%flat : memref<1056xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.reinterpret_cast %flat to offset: [0], sizes: [32, 32], strides: [33, 1]
      : memref<1056xf32, #gpu.address_space<workgroup>>
        to memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 132*tid.x}}
    %v = memref.load %tile[%tx, %c0] : memref<32x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A column walked by a loop: the counter moves every lane together.
func.func @column_loop() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    scf.for %k = %c0 to %c32 step %c1 {
      // expected-remark @below {{32-way bank conflict: 32 wavefronts per warp for 4-byte accesses at byte 128*tid.x + 4*it0}}
      %v = memref.load %tile[%tx, %k] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}

// -----

// An f16 column: 64-byte rows put two rows in one bank row, 16-way; rows of
// 34 halves (17 words) spread the column over every bank.
func.func @column_f16() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf16, #gpu.address_space<workgroup>>,
                       %flat : memref<1088xf16, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{16-way bank conflict: 16 wavefronts per warp for 2-byte accesses at byte 64*tid.x}}
    %v = memref.load %tile[%tx, %c0] : memref<32x32xf16, #gpu.address_space<workgroup>>
    %padded = memref.reinterpret_cast %flat to offset: [0], sizes: [32, 32], strides: [34, 1]
      : memref<1088xf16, #gpu.address_space<workgroup>>
        to memref<32x32xf16, strided<[34, 1]>, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 2-byte accesses at byte 68*tid.x}}
    %w = memref.load %padded[%tx, %c0] : memref<32x32xf16, strided<[34, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// 16-byte vectors are served a quarter-warp (8 lanes) at a time: contiguous
// ones take the minimum 4 wavefronts; down a column of 128-byte rows each
// quarter-warp hits the same 4 banks 8 times.
func.func @vector_16_bytes() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>,
                       %flat : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %c4 = arith.constant 4 : index
    %i = arith.muli %tx, %c4 : index
    // expected-remark @below {{conflict-free: 4 wavefronts per warp for 16-byte accesses at byte 16*tid.x}}
    %v = vector.load %flat[%i] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    // expected-remark @below {{8-way bank conflict: 32 wavefronts per warp for 16-byte accesses at byte 128*tid.x}}
    %w = vector.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    // Misaligned by one float: not costed as one instruction.
    %j = arith.addi %i, %c1 : index
    // expected-remark @below {{bank conflicts unknown: the 16-byte vector access is not provably 16-byte aligned}}
    vector.store %v, %flat[%j] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A broadcast (every lane the same word) and 8-byte elements.
func.func @broadcast_and_f64() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>,
                       %d : memref<32x32xf64, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 0}}
    %v = memref.load %tile[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{conflict-free: 2 wavefronts per warp for 8-byte accesses at byte 8*tid.x}}
    %w = memref.load %d[%c0, %tx] : memref<32x32xf64, #gpu.address_space<workgroup>>
    // A column: each half-warp's 16 lanes in banks 0 and 1.
    // expected-remark @below {{16-way bank conflict: 32 wavefronts per warp for 8-byte accesses at byte 256*tid.x}}
    %x = memref.load %d[%tx, %c0] : memref<32x32xf64, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Thread coordinates by division and remainder (a 16x16 thread grid over a
// 256-thread block): a warp covers two rows.
func.func @thread_grid() {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16x16xf32, #gpu.address_space<workgroup>>) {
    %r = arith.divui %tx, %c16 : index
    %c = arith.remui %tx, %c16 : index
    // Lanes 0..15 read row r, lanes 16..31 row r + 1: 32 consecutive words.
    // expected-remark @below {{conflict-free: 1 wavefront per warp for 4-byte accesses at byte 64*(tid.x floordiv 16) + 4*(tid.x mod 16)}}
    %v = memref.load %tile[%r, %c] : memref<16x16xf32, #gpu.address_space<workgroup>>
    // Transposed: lanes 0..15 walk column r, rows 16 words apart, so even
    // rows share one bank and odd rows another (8 each); lanes 16..31 walk
    // column r + 1.
    // expected-remark @below {{8-way bank conflict: 8 wavefronts per warp for 4-byte accesses at byte 64*(tid.x mod 16) + 4*(tid.x floordiv 16)}}
    %w = memref.load %tile[%c, %r] : memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// An outlined kernel: the block size comes from known_block_size.
gpu.module @kernels {
  gpu.func @k(%buf : memref<32x32xf32, #gpu.address_space<workgroup>>) workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    // expected-remark @below {{32-way bank conflict}}
    %v = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
  gpu.func @unknown_size() workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    // expected-remark @below {{bank conflicts unknown: the block size is not a known constant}}
    %v = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// An index loaded from memory is not analysable: reported, not guessed.
func.func @data_dependent(%idx: memref<32xindex>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    %i = memref.load %idx[%tx] : memref<32xindex>
    // expected-remark @below {{bank conflicts unknown: its index depends on a value computed by memref.load}}
    %v = memref.load %tile[%i, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
