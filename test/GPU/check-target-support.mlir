// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-check-target-support=chip=sm_80
// RUN: not ext-opt %s --split-input-file --ext-gpu-check-target-support=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: ext-opt %s --split-input-file --ext-gpu-check-target-support=chip=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: ext-opt %s --split-input-file --ext-gpu-check-target-support=chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: not ext-opt %s --split-input-file --ext-gpu-check-target-support=chip=volta 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ext-opt %s --split-input-file --ext-gpu-check-target-support=chip=sm_9x 2>&1 | FileCheck %s --check-prefix=CHIP-SM
// A kernel that uses a feature the chip lacks gets one error at the op, before
// convert-gpu-to-nvvm lowers it to IR that does not verify for that chip.

// SM90-LABEL: gpu.func @cluster_id
// SM90: gpu.cluster_id x
// AMD: 'gpu.cluster_id' op uses thread block clusters, which AMD chips do not have (target gfx90a)
// AMD: 'gpu.cluster_dim' op uses thread block clusters, which AMD chips do not have
// AMD: 'gpu.cluster_block_id' op uses thread block clusters
// AMD: 'gpu.cluster_dim_blocks' op uses thread block clusters
// AMD: 'gpu.launch' op uses thread block clusters, which AMD chips do not have
// AMD: 'gpu.launch_func' op uses thread block clusters, which AMD chips do not have
// AMD: 'nvvm.read.ptx.sreg.clusterid.x' op is an NVVM op; the target is the AMD chip gfx90a
// AMD-NOT: error: '
// CHIP: error: ext-gpu-check-target-support: chip 'volta' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)
// CHIP-SM: error: ext-gpu-check-target-support: chip 'sm_9x' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @cluster_id() kernel {
      // expected-error @below {{'gpu.cluster_id' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
      %c = gpu.cluster_id x
      gpu.return
    }
  }
}

// -----

// SM90-LABEL: gpu.func @cluster_queries
// SM90-COUNT-3: gpu.cluster_
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @cluster_queries() kernel {
      // expected-error @below {{'gpu.cluster_dim' op uses thread block clusters}}
      %d = gpu.cluster_dim y
      // expected-error @below {{'gpu.cluster_block_id' op uses thread block clusters}}
      %b = gpu.cluster_block_id z
      // expected-error @below {{'gpu.cluster_dim_blocks' op uses thread block clusters}}
      %n = gpu.cluster_dim_blocks x
      gpu.return
    }
  }
}

// -----

// A cluster size on the launch is the same feature, checked on host code.
// SM90-LABEL: func.func @launch_with_clusters
// SM90: gpu.launch clusters
func.func @launch_with_clusters() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-error @below {{'gpu.launch' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c1, %ny = %c1, %nz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// SM90-LABEL: func.func @launch_func_with_clusters
// SM90: gpu.launch_func @m::@k clusters
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @launch_func_with_clusters() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // expected-error @below {{'gpu.launch_func' op uses thread block clusters, which need sm_90 or later; the target is sm_80}}
    gpu.launch_func @m::@k clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// An NVVM op already in a kernel needs the SM version it declares.
// SM90-LABEL: gpu.func @nvvm_cluster_sreg
// SM90: nvvm.read.ptx.sreg.clusterid.x
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @nvvm_cluster_sreg() kernel {
      // expected-error @below {{'nvvm.read.ptx.sreg.clusterid.x' op needs sm_90 or later; the target is sm_80}}
      %c = nvvm.read.ptx.sreg.clusterid.x : i32
      gpu.return
    }
  }
}

// -----

// Kernels without such ops pass on every chip, and host code is not checked
// for NVVM ops.
// SM90-LABEL: gpu.func @plain
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @plain(%buf: memref<4xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<4xf32>
      memref.store %v, %buf[%t] : memref<4xf32>
      gpu.barrier
      gpu.return
    }
  }
}
