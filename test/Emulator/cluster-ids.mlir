// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --emu-seed=5 %s | FileCheck %s
// RUN: env EXT_EMU_THREADS=1 ext-run --emu-schedule=round-robin %s | FileCheck %s
// Thread block clusters' ids, as CUDA numbers them: cluster (cx, cy, cz) of
// a cluster shape (CX, CY, CZ) holds the blocks x in [cx * CX, cx * CX + CX)
// (and so on), gpu.cluster_block_id is a block's place in it, its rank
// (%cluster_ctarank) x + y * CX + z * CX * CY of that place,
// gpu.cluster_dim the clusters per grid, gpu.cluster_dim_blocks and
// %cluster_nctarank the blocks per cluster. Block ids are the grid's.
// Lines come out in block order (x fastest).
//
// gpu.launch with 2x1x1 clusters on a grid of 4x1x1 blocks:
// CHECK:      block (0, 0) cluster (0, 0) of (2, 1) place (0, 0) of (2, 1) rank 0 of 2
// CHECK-NEXT: block (1, 0) cluster (0, 0) of (2, 1) place (1, 0) of (2, 1) rank 1 of 2
// CHECK-NEXT: block (2, 0) cluster (1, 0) of (2, 1) place (0, 0) of (2, 1) rank 0 of 2
// CHECK-NEXT: block (3, 0) cluster (1, 0) of (2, 1) place (1, 0) of (2, 1) rank 1 of 2
//
// gpu.launch_func with 2x2x1 clusters on a grid of 4x2x1 blocks, read
// through NVVM's special registers (i32):
// CHECK-NEXT: block (0, 0) cluster (0, 0) of (2, 1) place (0, 0) of (2, 2) rank 0 of 4
// CHECK-NEXT: block (1, 0) cluster (0, 0) of (2, 1) place (1, 0) of (2, 2) rank 1 of 4
// CHECK-NEXT: block (2, 0) cluster (1, 0) of (2, 1) place (0, 0) of (2, 2) rank 0 of 4
// CHECK-NEXT: block (3, 0) cluster (1, 0) of (2, 1) place (1, 0) of (2, 2) rank 1 of 4
// CHECK-NEXT: block (0, 1) cluster (0, 0) of (2, 1) place (0, 1) of (2, 2) rank 2 of 4
// CHECK-NEXT: block (1, 1) cluster (0, 0) of (2, 1) place (1, 1) of (2, 2) rank 3 of 4
// CHECK-NEXT: block (2, 1) cluster (1, 0) of (2, 1) place (0, 1) of (2, 2) rank 2 of 4
// CHECK-NEXT: block (3, 1) cluster (1, 0) of (2, 1) place (1, 1) of (2, 2) rank 3 of 4
//
// A launch without clusters has clusters of one block.
// CHECK-NEXT: block (1, 0) cluster (1, 0) of (2, 1) place (0, 0) of (1, 1) rank 0 of 1

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @registers() kernel {
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %cx = nvvm.read.ptx.sreg.clusterid.x : i32
      %cy = nvvm.read.ptx.sreg.clusterid.y : i32
      %nx = nvvm.read.ptx.sreg.nclusterid.x : i32
      %ny = nvvm.read.ptx.sreg.nclusterid.y : i32
      %px = nvvm.read.ptx.sreg.cluster.ctaid.x : i32
      %py = nvvm.read.ptx.sreg.cluster.ctaid.y : i32
      %sx = nvvm.read.ptx.sreg.cluster.nctaid.x : i32
      %sy = nvvm.read.ptx.sreg.cluster.nctaid.y : i32
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %n = nvvm.read.ptx.sreg.cluster.nctarank : i32
      gpu.printf "block (%ld, %ld) cluster (%d, %d) of (%d, %d) place (%d, %d) of (%d, %d) rank %d of %d\n", %bx, %by, %cx, %cy, %nx, %ny, %px, %py, %sx, %sy, %rank, %n : index, index, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch clusters(%cx, %cy, %cz) in (%scx = %c2, %scy = %c1, %scz = %c1)
               blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // (Outlining turns %scx into gpu.cluster_dim, clusters per grid, not
      // the cluster's size: gpu.cluster_dim_blocks reads that.)
      %idx = gpu.cluster_id x
      %idy = gpu.cluster_id y
      %nx = gpu.cluster_dim x
      %ny = gpu.cluster_dim y
      %px = gpu.cluster_block_id x
      %py = gpu.cluster_block_id y
      %sizex = gpu.cluster_dim_blocks x
      %sizey = gpu.cluster_dim_blocks y
      %sizez = gpu.cluster_dim_blocks z
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %syz = arith.muli %sizey, %sizez : index
      %n = arith.muli %sizex, %syz : index
      gpu.printf "block (%ld, %ld) cluster (%ld, %ld) of (%ld, %ld) place (%ld, %ld) of (%ld, %ld) rank %d of %ld\n", %bx, %by, %idx, %idy, %nx, %ny, %px, %py, %sizex, %sizey, %rank, %n : index, index, index, index, index, index, index, index, index, index, i32, index
      gpu.terminator
    }
    gpu.launch_func @kernels::@registers clusters in (%c2, %c2, %c1)
        blocks in (%c4, %c2, %c1) threads in (%c1, %c1, %c1)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %one = arith.constant 1 : index
      %last = arith.cmpi eq, %bx, %one : index
      scf.if %last {
        %idx = gpu.cluster_id x
        %idy = gpu.cluster_id y
        %nx = gpu.cluster_dim x
        %ny = gpu.cluster_dim y
        %px = gpu.cluster_block_id x
        %py = gpu.cluster_block_id y
        %sizex = gpu.cluster_dim_blocks x
        %sizey = gpu.cluster_dim_blocks y
        %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
        %n = nvvm.read.ptx.sreg.cluster.nctarank : i32
        gpu.printf "block (%ld, %ld) cluster (%ld, %ld) of (%ld, %ld) place (%ld, %ld) of (%ld, %ld) rank %d of %d\n", %bx, %by, %idx, %idy, %nx, %ny, %px, %py, %sizex, %sizey, %rank, %n : index, index, index, index, index, index, index, index, index, index, i32, i32
      }
      gpu.terminator
    }
    return
  }
}
