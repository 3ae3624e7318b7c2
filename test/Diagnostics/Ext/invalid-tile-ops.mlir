// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-tile-ops-to-threads
// Malformed tile-level ops: one concern per split.

func.func @shared_not_workgroup() {
  // expected-error @+1 {{'ext.alloc_shared' op result must be in #gpu.address_space<workgroup>, got 'memref<16x8xf32>'}}
  %s = ext.alloc_shared : memref<16x8xf32>
  return
}

// -----

func.func @shared_wrong_strides() {
  // expected-error @+1 {{layout must have offset 0 and strides [17, 1] (row-major padded by storage_align)}}
  %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]}
      : memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @shared_dynamic() {
  // expected-error @+1 {{'ext.alloc_shared' op needs a static shape}}
  %s = ext.alloc_shared : memref<?x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @fragment_threads_rank() {
  // expected-error @+1 {{'ext.alloc_fragment' op has 1 thread counts for a rank-2 fragment}}
  %f = ext.alloc_fragment threads [8] : memref<16x16xf32>
  return
}

// -----

func.func @fragment_not_divisible() {
  // expected-error @+1 {{'ext.alloc_fragment' op dimension #1 of size 16 is not a multiple of its 6 threads}}
  %f = ext.alloc_fragment threads [8, 6] : memref<16x16xf32>
  return
}

// -----

func.func @copy_rank(%A: memref<32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op copies a rank-2 window out of a rank-1 source}}
  ext.copy %A[%c0] to %s : memref<32xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_element_type(%A: memref<32x32xf16>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op copies 'f16' into 'f32'}}
  ext.copy %A[%c0, %c0] to %s : memref<32x32xf16> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_offsets(%A: memref<32x32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op needs one offset per source dimension (2), got 1}}
  ext.copy %A[%c0] to %s : memref<32x32xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @kernel_body_args() {
  // expected-error @+1 {{'ext.kernel' op body takes 2 tile coordinates, k_begin and k_end, all index}}
  ext.kernel tiles [2, 2] iters 1 threads 32 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%a: index, %b: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @kernel_epilogue_fragments() {
  // expected-error @+1 {{'ext.kernel' op epilogue takes 1 tile coordinates and the 1 fragments the body yields}}
  ext.kernel tiles [2] iters 1 threads 32 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [32] : memref<32xf32>
    ext.kernel_yield %f : memref<32xf32>
  } epilogue {
  ^bb0(%a: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @kernel_threads() {
  // expected-error @+1 {{'ext.kernel' op has 2048 threads per block; a block holds 1 to 1024}}
  ext.kernel tiles [2] iters 1 threads 2048 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%a: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @tile_compute_bounds(%X: memref<8xf32>, %Y: memref<8xf32>) {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'ext.tile_compute' op has 2 bounds but 1 axes; give one per axis or none}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8] bounds(%c4, %c4)
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @tile_compute_accumulate_without_reduce(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op accumulates, but has no reduce axis}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] accumulate {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @tile_compute_threads_rank(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op has 2 thread counts but 1 axes}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8, 1]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// Extent 6 on 8 threads would leave every thread 6 / 8 = 0 points.
func.func @tile_compute_threads_exceed_extent(%X: memref<6xf32>, %Y: memref<6xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op spatial axis 'i' of extent 6 runs on 8 threads, which do not divide it}}
  ext.tile_compute [#ext.axis<"i", spatial, 6>] threads [8]
      ins(%X : memref<6xf32>) outs(%Y : memref<6xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// The compute-like checks apply to tile computes too.
func.func @tile_compute_map_count(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op expects one indexing map per operand (2), got 1}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @tile_op_outside_launch(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op must be inside a gpu.launch to be lowered to threads; run ext-kernel-to-gpu first}}
  ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8]
      ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// A fragment distributed by one layout read through another: the threads
// would not find their points.
func.func @fragment_layout_mismatch(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %f = ext.alloc_fragment threads [16] layout(#ext.blocked<thread_tile = [4]>) : memref<64xf32>
    // expected-error @+1 {{'ext.tile_compute' op accesses a fragment of layout #ext.blocked<thread_tile = [4]> with layout #ext.cyclic; a fragment's threads hold its points by its own layout}}
    ext.tile_compute [#ext.axis<"i", spatial, 64>] threads [16]
        ins(%f : memref<64xf32>) outs(%out : memref<64xf32>)
        maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @store_tile_rank(%C: memref<32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.store_tile' op stores a rank-2 tile into a rank-1 target}}
  ext.store_tile %s to %C[%c0] : memref<16x8xf32, #gpu.address_space<workgroup>> to memref<32xf32>
  return
}

// -----

func.func @store_tile_offsets(%C: memref<32x32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.store_tile' op needs one offset per target dimension (2), got 1}}
  ext.store_tile %s to %C[%c0] : memref<16x8xf32, #gpu.address_space<workgroup>> to memref<32x32xf32>
  return
}

// -----

func.func @store_tile_element_type(%C: memref<32x32xf16>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.store_tile' op stores 'f32' into 'f16'}}
  ext.store_tile %s to %C[%c0, %c0] : memref<16x8xf32, #gpu.address_space<workgroup>> to memref<32x32xf16>
  return
}

// -----

func.func @store_tile_vector(%C: memref<32x32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.store_tile' op vector width must be a power of two}}
  ext.store_tile %s to %C[%c0, %c0] {vector = 3 : i64} : memref<16x8xf32, #gpu.address_space<workgroup>> to memref<32x32xf32>
  return
}

// -----

func.func @copy_row_multiple_zero(%A: memref<32x?xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op row_multiple must be positive}}
  ext.copy %A[%c0, %c0] to %s {row_multiple = 0 : i64} : memref<32x?xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_row_multiple_wrong(%A: memref<32x30xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op row_multiple 4 does not divide the source's rows of 30}}
  ext.copy %A[%c0, %c0] to %s {row_multiple = 4 : i64} : memref<32x30xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_in_bounds_rank(%A: memref<32x32xf32>, %s: memref<16x8xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'ext.copy' op has 1 in_bounds flags for a rank-2 source}}
  ext.copy %A[%c0, %c0] to %s {in_bounds = array<i1: true>} : memref<32x32xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// A fragment reduction along its columns names the rows first, then the
// reduce axis.
func.func @fragment_reduction_axes_order(%f: memref<64x64xf32>, %r: memref<64xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{'ext.tile_compute' op with an #ext.mma layout reduces a fragment along its columns: one spatial axis (the rows), then one reduce axis}}
  ext.tile_compute [#ext.axis<"j", reduce, 64>, #ext.axis<"i", spatial, 64>] threads [32, 4] layout #ext.mma<m16n8k16, warps = [4, 1]> ins(%f : memref<64x64xf32>) outs(%r : memref<64xf32, #gpu.address_space<workgroup>>) maps [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (i)>] combiner(max) {
  ^bb0(%v: f32):
    ext.yield %v : f32
  }
  return
}

// -----

// Rows split over warps (warps = [2, 2]) would need a combine through shared
// memory: refused at the op.
func.func @fragment_reduction_rows_over_warps(%A: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c128, %v = %c1, %w = %c1) {
    %f = ext.alloc_fragment threads [4, 32] layout(#ext.mma<m16n8k16, warps = [2, 2]>) : memref<64x64xf32>
    %r = ext.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'ext.tile_compute' op reduces a fragment of #ext.mma<m16n8k16, warps = [2, 2]> along its columns; its rows must each be in one warp (warps = [WM, 1])}}
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] threads [4, 32] layout #ext.mma<m16n8k16, warps = [2, 2]> ins(%f : memref<64x64xf32>) outs(%r : memref<64xf32, #gpu.address_space<workgroup>>) maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>] combiner(max) {
    ^bb0(%val: f32):
      ext.yield %val : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A fragment reduction leaves the row's value in every lane: a row-slice
// fragment takes it in each of them, memory from one. Both at once in one
// op is refused.
#mma41 = #ext.mma<m16n8k16, warps = [4, 1]>
func.func @fragment_reduction_into_fragment_and_memory(%A: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c128, %v = %c1, %w = %c1) {
    %f = ext.alloc_fragment threads [4, 32] layout(#mma41) : memref<64x64xf32>
    %m = ext.alloc_fragment threads [128] layout(#ext.slice<dim = 1, parent = #mma41>) : memref<64xf32>
    %r = ext.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'ext.tile_compute' op reduces a fragment into fragments and memory at once; give each its own reduction}}
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] threads [4, 32] layout #mma41 ins(%f : memref<64x64xf32>) outs(%m, %r : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>) maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>] combiner(max) {
    ^bb0(%val: f32):
      ext.yield %val, %val : f32, f32
    }
    gpu.terminator
  }
  return
}

// -----

// A row-slice fragment is read by tile computes of its parent layout
// through their row axis only.
#mma41 = #ext.mma<m16n8k16, warps = [4, 1]>
func.func @slice_read_through_columns() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c128, %v = %c1, %w = %c1) {
    %f = ext.alloc_fragment threads [4, 32] layout(#mma41) : memref<64x64xf32>
    %m = ext.alloc_fragment threads [128] layout(#ext.slice<dim = 1, parent = #mma41>) : memref<64xf32>
    // expected-error @+1 {{'ext.tile_compute' op accesses a fragment of layout #ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>> with layout #ext.mma<m16n8k16, warps = [4, 1]>}}
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>] threads [4, 32] layout #mma41 ins(%m : memref<64xf32>) outs(%f : memref<64x64xf32>) maps [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>] {
    ^bb0(%val: f32):
      ext.yield %val : f32
    }
    gpu.terminator
  }
  return
}
