// Thread block cluster launches on the host side, on the fake CUDA driver
// (test/Tools/FakeCuda: kernels write 42 into their buffers; a cluster
// launch is checked as the driver checks it: an sm_90 device, a cluster that
// divides the grid, more than 8 CTAs only for a kernel that allowed it).
//
// ext-run: a gpu.launch with `clusters(...)` becomes a gpu.launch_func with
// `clusters in`, which MLIR's LLVM translation calls mgpuLaunchClusterKernel
// for; ext's CUDA runtime launches it with cuLaunchKernelEx and the cluster
// dimension attribute, and reports the cluster with the launch's timing.
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 ext-run --target=cuda --chip=sm_90a %s 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --implicit-check-not=failed < %t.err
// CHECK: [42,  42,  42,  42]
// ERR: fake-cuda: cluster (2, 2, 1) of grid (4, 2, 1)
// ERR: ext-run: kernel main_kernel grid (4, 2, 1) block (32, 1, 1) cluster (2, 2, 1): 0.250 ms
//
// A cluster that does not divide the grid is the driver's error, reported.
// RUN: sed 's/%kx = arith.constant 2/%kx = arith.constant 3/' %s > %t.uneven.mlir
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 not ext-run --target=cuda --chip=sm_90a %t.uneven.mlir 2>&1 | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: ext-cuda-runtime: cuLaunchKernelEx failed: CUDA_ERROR_INVALID_CLUSTER_SIZE
// UNEVEN: CUDA driver call(s) failed
//
// 16 CTAs (4x4) are a non-portable cluster size: the runtime opts the kernel
// in first, and the launch goes through.
// RUN: sed 's/%kx = arith.constant 2/%kx = arith.constant 4/; s/%ky = arith.constant 2/%ky = arith.constant 4/; s/%gy = arith.constant 2/%gy = arith.constant 4/' %s > %t.large.mlir
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 ext-run --target=cuda --chip=sm_90a %t.large.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=LARGE --implicit-check-not=failed
// LARGE: fake-cuda: non-portable cluster sizes allowed
// LARGE: fake-cuda: cluster (4, 4, 1) of grid (4, 4, 1)
// LARGE: ext-run: kernel main_kernel grid (4, 4, 1) block (32, 1, 1) cluster (4, 4, 1): 0.250 ms
//
// A device before sm_90 has no clusters (the fake is an 8.0 unless told).
// RUN: env EXT_CUDA_DRIVER=%fake_cuda not ext-run --target=cuda --chip=sm_90a %s 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: ext-cuda-runtime: cuLaunchKernelEx failed: CUDA_ERROR_NOT_SUPPORTED
//
// bench/gpu: export.py records the cluster of its cluster probe's launch
// (bench/gpu/cluster-probe.mlir), replay.py launches it with
// cuLaunchKernelEx; the fake computes nothing, so the check fails.
// RUN: rm -rf %t.dir && %python %ext_src/bench/gpu/export.py %t.dir --build %ext_obj --only '^cluster-probe$' | FileCheck %s --check-prefix=EXPORT
// EXPORT: cluster-probe 128x128x64: gemm_kernel: {{[0-9]+}} registers, 0 B spilled
// EXPORT: 1 exported, 0 failed
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.dir/manifest.json
// MANIFEST: "grid": [
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 1
// MANIFEST: "cluster": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 not %python %ext_src/bench/gpu/replay.py %t.dir --no-cublas --out %t.csv 2>&1 | FileCheck %s --check-prefix=REPLAY
// REPLAY-DAG: fake-cuda: cluster (2, 2, 1) of grid (8, 8, 1)
// REPLAY-DAG: cluster-probe 128x128x64 {{.*}} WRONG
// REPLAY: 1 runs, 1 failed
// A manifest whose cluster does not divide the grid fails the launch: the
// replay passes the cluster the manifest holds.
// RUN: %python -c "import json, sys; m = json.load(open(sys.argv[1])); m['entries'][0]['steps'][-1]['cluster'] = [3, 2, 1]; json.dump(m, open(sys.argv[1], 'w'))" %t.dir/manifest.json
// RUN: env EXT_CUDA_DRIVER=%fake_cuda FAKE_CUDA_CC=90 not %python %ext_src/bench/gpu/replay.py %t.dir --no-cublas --out %t.csv 2>&1 | FileCheck %s --check-prefix=UNEVEN-REPLAY
// UNEVEN-REPLAY: cluster-probe 128x128x64: cuLaunchKernelEx failed: 912 (CUDA_ERROR_INVALID_CLUSTER_SIZE)
// UNEVEN-REPLAY: 1 runs, 1 failed

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

// Each CTA writes its place in its cluster: x + 2 y for clusters of 2x2.
func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %gx = arith.constant 4 : index
  %gy = arith.constant 2 : index
  %kx = arith.constant 2 : index
  %ky = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<4xf32>)
  gpu.launch clusters(%cx, %cy, %cz) in (%ncx = %kx, %ncy = %ky, %ncz = %c1)
             blocks(%bx, %by, %bz) in (%sgx = %gx, %sgy = %gy, %sgz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k4 = arith.constant 4 : index
    %ix = gpu.cluster_block_id x
    %iy = gpu.cluster_block_id y
    %wx = gpu.cluster_dim_blocks x
    %row = arith.muli %iy, %wx : index
    %place = arith.addi %row, %ix : index
    %first = arith.cmpi eq, %tx, %k0 : index
    %inside = arith.cmpi ult, %place, %k4 : index
    %write = arith.andi %first, %inside : i1
    scf.if %write {
      %i = arith.index_cast %place : index to i32
      %f = arith.sitofp %i : i32 to f32
      memref.store %f, %x[%place] : memref<4xf32>
    }
    gpu.terminator
  }
  %u = memref.cast %x : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<4xf32>
  return
}
