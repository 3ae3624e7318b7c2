// RUN: ext-opt %s --split-input-file --verify-diagnostics
// `cluster` (thread block clusters sharing the k-loop's tiles), misused.

// expected-error @below {{schedule with cluster needs specialize = cooperative or pingpong (the producer warpgroup multicasts the shared tiles)}}
#s0 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], mma = #ext.mma<wgmma_k16>, warps = [8, 1], stages = 3, tma = true, cluster = [2, 1]>

// -----

// expected-error @below {{schedule cluster of 4 x 4 CTAs: a thread block cluster holds at most 8 (the portable limit)}}
#s1 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], mma = #ext.mma<wgmma_k16>, warps = [8, 1], stages = 3, tma = true, specialize = cooperative, cluster = [4, 4]>

// -----

// expected-error @below {{schedule cluster must be [CM, CN], two positive CTA counts over the last two blocked axes}}
#s2 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], mma = #ext.mma<wgmma_k16>, warps = [8, 1], stages = 3, tma = true, specialize = cooperative, cluster = [2]>

// -----

func.func @cluster_with_split_k() {
  // expected-error @below {{'ext.kernel' op has a cluster, whose CTAs share every k-step's tiles, but decomposition #ext.split_k<slices = 2> may give them different k-ranges or tile counts (use #ext.data_parallel or #ext.persistent)}}
  ext.kernel tiles [2, 2] iters 4 threads 384 decomposition #ext.split_k<slices = 2> cluster [2, 1] {
  ^bb0(%i: index, %j: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index, %j: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @cluster_of_one_tile_dim() {
  // expected-error @below {{'ext.kernel' op cluster must be [CM, CN], positive CTA counts over the last two of at least two tile dimensions}}
  ext.kernel tiles [4] iters 4 threads 384 decomposition #ext.data_parallel cluster [2, 1] {
  ^bb0(%i: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @released_by_more_ctas_than_the_cluster() {
  ext.kernel tiles [2, 2] iters 4 threads 384 decomposition #ext.data_parallel cluster [2, 1] {
  ^bb0(%i: index, %j: index, %kb: index, %ke: index):
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    // expected-error @below {{'ext.warp_specialize' op has stages released by 3 CTAs; its kernel's cluster has 2}}
    ext.warp_specialize producer_threads 128 full(%full) empty(%empty) : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> attributes {release_ctas = 3 : i64} {
    }
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index, %j: index):
    ext.kernel_yield
  }
  return
}
