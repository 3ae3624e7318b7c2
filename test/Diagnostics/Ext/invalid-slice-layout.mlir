// RUN: ext-opt %s --split-input-file --verify-diagnostics
// #ext.slice: the rows of an #ext.mma fragment. One concern per split.

// expected-error @+1 {{slice layout: only dim = 1 (an MMA fragment's columns) is supported, got dim = 0}}
#bad = #ext.slice<dim = 0, parent = #ext.mma<m16n8k16, warps = [4, 1]>>
func.func @rows_not_columns() {
  %f = ext.alloc_fragment threads [128] layout(#bad) : memref<64xf32>
  return
}

// -----

// expected-error @+1 {{slice layout: the parent must be an #ext.mma layout naming its instruction with warps = [WM, 1] (each row in one warp), got #ext.mma<m16n8k16, warps = [2, 2]>}}
#bad = #ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [2, 2]>>
func.func @rows_split_over_warps() {
  %f = ext.alloc_fragment threads [128] layout(#bad) : memref<64xf32>
  return
}

// -----

func.func @threads_not_the_parents() {
  // expected-error @+1 {{'ext.alloc_fragment' op mma layout: 64 threads, but warps = [4, 1] of 32 lanes need 128}}
  %f = ext.alloc_fragment threads [64] layout(#ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>>) : memref<64xf32>
  return
}

// -----

func.func @two_dimensions() {
  // expected-error @+1 {{'ext.alloc_fragment' op slice layout: a tile of 2 dimensions; a slice of an MMA fragment's columns has 1 (the rows)}}
  %f = ext.alloc_fragment threads [4, 32] layout(#ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>>) : memref<64x16xf32>
  return
}

// -----

func.func @rows_not_the_warps() {
  // expected-error @+1 {{'ext.alloc_fragment' op mma layout: tile dimension #0 of size 48 is not a multiple of 4 warps x 16 (the instruction's M)}}
  %f = ext.alloc_fragment threads [128] layout(#ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>>) : memref<48xf32>
  return
}

// -----

func.func @slice_compute_reduces(%m: memref<64xf32>) {
  %s = ext.alloc_fragment threads [128] layout(#ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>>) : memref<64xf32>
  // expected-error @+1 {{'ext.tile_compute' op with a slice layout is element-wise (its rows sit in several lanes each); reduce with the parent layout's fragment reduction instead}}
  ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 4>] threads [128, 1] layout #ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>> ins(%s : memref<64xf32>) outs(%m : memref<64xf32>) maps [affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%v: f32):
    ext.yield %v : f32
  }
  return
}
