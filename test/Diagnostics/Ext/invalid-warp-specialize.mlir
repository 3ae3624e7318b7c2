// RUN: ext-opt %s --split-input-file --verify-diagnostics
// `specialize` and the ops of a warp-specialized kernel, misused.

// expected-error @below {{schedule with specialize = cooperative needs tma = true (its producer warpgroup issues bulk tensor copies)}}
#s0 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], mma = #ext.mma<wgmma_k16>, warps = [8, 1], stages = 3, specialize = cooperative>

// -----

// expected-error @below {{schedule with specialize = cooperative needs mma = #ext.mma<wgmma_k16> (its consumer warpgroups compute on warpgroup MMAs)}}
#s1 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], mma = #ext.mma<m16n8k16>, warps = [4, 2], stages = 3, tma = true, specialize = cooperative>

// -----

// expected-error @below {{specialize must be 'none', 'cooperative' or 'pingpong', got 'zigzag'}}
#s2 = #ext.schedule<tile = [128, 64, 64], threads = [8, 32, 1], stages = 3, tma = true, specialize = zigzag>

// -----

func.func @outside_kernel() {
  %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
  // expected-error @below {{'ext.warp_specialize' op must be directly in an ext.kernel's body}}
  ext.warp_specialize producer_threads 128 full(%full) empty(%full) : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> {
  }
  return
}

// -----

func.func @base_outside_kernel() -> index {
  // expected-error @below {{'ext.pipeline_base' op must be inside an ext.kernel}}
  %0 = ext.pipeline_base
  return %0 : index
}

// -----

func.func @too_few_consumers() {
  ext.kernel tiles [1] iters 4 threads 192 decomposition #ext.data_parallel {
  ^bb0(%i: index, %kb: index, %ke: index):
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    // expected-error @below {{'ext.warp_specialize' op leaves 64 of the kernel's 192 threads to the consumers; they must be whole warpgroups (a multiple of 128)}}
    ext.warp_specialize producer_threads 128 full(%full) empty(%empty) : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> {
    }
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @split_reduction() {
  ext.kernel tiles [1] iters 4 threads 256 decomposition #ext.split_k<slices = 2, mode = parallel> {
  ^bb0(%i: index, %kb: index, %ke: index):
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    // expected-error @below {{'ext.warp_specialize' op in a kernel whose decomposition is #ext.split_k<slices = 2, mode = parallel>: a second launch (parallel split-K's reduction) has no producer part}}
    ext.warp_specialize producer_threads 128 full(%full) empty(%empty) : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> {
    }
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index):
    ext.kernel_yield
  }
  return
}
