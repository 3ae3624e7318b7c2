// RUN: ext-opt %s --split-input-file --verify-diagnostics
// Schedules that do not fit their compute: one concern per split.

func.func @tile_rank(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: has 2 tile sizes but the compute has 3 axes}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @threads_rank(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: has 2 thread counts but the compute has 3 axes}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A tile larger than its axis is masked (test/Integration/tile-larger-than-axis.mlir),
// but a reduce axis on threads is reduced by a tree over exactly its extent.
func.func @thread_reduce_tile_too_big(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: reduce axis 'k' runs on 4 threads, so its tile must be exactly its extent (a tree reduction over the whole axis in one step): tile 64, extent 32; use tile 32}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [128, 32, 64], blocks = ["j"], threads = [8, 8, 4]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @unknown_block_axis(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: binds axis 'x' to blocks, but the compute has no such axis}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "x"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @block_axis_twice(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: binds axis 'i' to blocks twice}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "i", "j"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @tiled_not_blocked(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: spatial axis 'j' is tiled (32 of 64) but not bound to blocks}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @reduce_bound_to_blocks_dp(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: binds reduce axis 'k' to blocks, but decomposition #ext.data_parallel does not split the reduction}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j", "k"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @too_many_threads(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: asks for 2048 threads per block; a block allows at most 1024}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 8], blocks = ["i", "j"], threads = [32, 64, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @tile_not_multiple_of_threads(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: tile size 32 of axis 'i' is not a multiple of its 6 threads}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [6, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @reduce_threads_partial_tile(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: reduce axis 'k' runs on 4 threads, so its tile must be exactly its extent (a tree reduction over the whole axis in one step): tile 8, extent 32; use tile 32}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 4]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @reduce_threads_not_pow2(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: reduce axis 'k' runs on 6 threads; a tree reduction needs a power of two}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 32], blocks = ["i", "j"], threads = [2, 2, 6]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @cache_operand_range(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: caches operand #3, but the compute has 2 inputs and 1 outputs}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], cache = [#ext.cache<operand = 3>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Only an accumulating compute has an epilogue to stage its output through.
func.func @cache_output_without_reduction(%X: memref<64xf32>, %Y: memref<64xf32>) {
  // expected-error @+1 {{schedule: caches output #0, but only a compute with reduce axes accumulates its outputs in an epilogue that can stage them}}
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {schedule = #ext.schedule<tile = [32], blocks = ["i"], threads = [32], cache = [#ext.cache<operand = 1>]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @cache_twice(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: caches input #0 twice}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 0>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @align_dim_range(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: storage_align of input #0 names dimension 2 of a rank-2 operand}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 2, factor = 32, offset = 1>]>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @zero_tile(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{schedule tile sizes must be positive, got 0}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [0], threads = [1]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @bad_vector(%X: memref<8xf32>, %Y: memref<8xf32>) {
  // expected-error @+2 {{schedule vector width must be 1, 2, 4 or 8, got 3}}
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], vector = 3>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @unknown_key(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{unknown schedule key 'tiles' (expected tile, blocks, threads, cache, decomposition, layout, mma, warps, raster, swizzle, vector, unroll, stages, async, tma, specialize, cluster, fast_math, compute_at, reverse_compute_at, compute_inline or online)}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tiles = [8], threads = [8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @missing_threads(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{schedule needs 'tile' and 'threads'}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @not_a_decomposition(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{8 : i64 is not a tile decomposition (it does not implement TileDecompositionAttrInterface)}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], decomposition = 8>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @bad_storage_align(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{storage_align offset must be in [0, factor), got 32 with factor 32}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 32>]>]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @bad_raster(%X: memref<8xf32>, %Y: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xf32>) outs(%Y : memref<8xf32>)
      // expected-error @+1 {{raster must be 'row' or 'col', got 'diagonal'}}
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<tile = [8], threads = [8], raster = diagonal>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @two_thread_reduce_axes(%X: memref<4x8x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{schedule: binds 2 reduce axes to threads; at most one is supported}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"r", reduce, 8>, #ext.axis<"s", reduce, 8>]
      ins(%X : memref<4x8x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, r, s) -> (i, r, s)>, affine_map<(i, r, s) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 8, 8], blocks = ["i"], threads = [1, 8, 8]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @two_split_reduce_axes(%X: memref<4x8x8xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{schedule: tiles 2 reduce axes below their extents; only one reduce axis can be iterated over}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"r", reduce, 8>, #ext.axis<"s", reduce, 8>]
      ins(%X : memref<4x8x8xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, r, s) -> (i, r, s)>, affine_map<(i, r, s) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 4, 4], blocks = ["i"], threads = [1, 1, 1]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @blocked_layout_rank(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: blocked layout has 1 thread_tile entries for 2 spatial dimensions}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>]
      ins(%A : memref<64x64xf32>) outs(%B : memref<64x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [64, 64], threads = [16, 16],
                                           layout = #ext.blocked<thread_tile = [4]>>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @blocked_layout_does_not_divide(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: blocked layout: dimension #1 of size 64 is not a multiple of 16 threads x thread_tile 8}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>]
      ins(%A : memref<64x64xf32>) outs(%B : memref<64x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [64, 64], threads = [16, 16],
                                           layout = #ext.blocked<thread_tile = [4, 8]>>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @not_a_layout(%A: memref<64xf32>, %B: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>]
      ins(%A : memref<64xf32>) outs(%B : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      // expected-error @+1 {{#ext.data_parallel is not a fragment layout (it does not implement FragmentLayoutAttrInterface)}}
      attributes {schedule = #ext.schedule<tile = [64], threads = [64], layout = #ext.data_parallel>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @stages_zero(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      // expected-error @+1 {{schedule stages must be positive, got 0 (1: one buffer, no pipelining)}}
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], stages = 0>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @async_not_bool(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      // expected-error @+1 {{async must be 'true' or 'false', got 'maybe'}}
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], stages = 2, async = maybe>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @stages_without_k_loop(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: stages = 2 pipelines the k-loop, but no reduce axis is tiled below its extent (there is no k-loop)}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 32], blocks = ["i", "j"], threads = [8, 8, 1],
        cache = [#ext.cache<operand = 0>], stages = 2>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @stages_without_cache(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: stages = 3 multi-buffers cached inputs, but the schedule caches none}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], stages = 3>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
