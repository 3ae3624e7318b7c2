//===- GPUToCPUEmulation.h - gpu kernels on the CPU emulator ----*- C++ -*-===//
//
// The pattern families of ext-gpu-to-cpu-emulation, one file each under
// lib/Conversion/GPUToCPUEmulation, and the passes the CPU pipeline runs to
// put gpu kernels on the emulation runtime (runtime/cpu).
//
// Device patterns rewrite the ops of one device function at a time (the
// EmulationModule's current function): the pass applies them in the IR's
// order, in phases (access hooks; all_reduce, whose region may hold other gpu
// ops; everything else), and a gpu op no pattern rewrites is an error naming
// it. Host patterns rewrite the gpu ops left in host code.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_CONVERSION_GPUTOCPUEMULATION_GPUTOCPUEMULATION_H
#define EXT_CONVERSION_GPUTOCPUEMULATION_GPUTOCPUEMULATION_H

#include "ext/Conversion/GPUToCPUEmulation/EmulationBuilder.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

namespace ext {

/// Yield points: a call of __ext_emu_access before every workgroup-memory
/// load and store and every atomic (atomics then become load, combine,
/// store), after every llvm.fence; and the names of workgroup views for race
/// reports.
void populateGPUAccessHookPatterns(mlir::RewritePatternSet &patterns,
                                   EmulationModule &emu);

/// Workgroup memory: static `memref.alloc`/`alloca` in it get slots of the
/// block's workgroup memory, `gpu.dynamic_shared_memory` the part after them,
/// `memref.dealloc` of it goes.
void populateGPUWorkgroupMemoryPatterns(mlir::RewritePatternSet &patterns,
                                        EmulationModule &emu);

/// Ids and sizes: thread/block ids and dims, grid dims, global ids, lane and
/// subgroup ids and sizes, thread block clusters' ids and sizes (gpu ops and
/// NVVM's special registers) become runtime queries hoisted to the entry.
void populateGPUIndexToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                         EmulationModule &emu);

/// `gpu.all_reduce` (run before the other device patterns: its region is
/// inlined and may hold other gpu ops).
void populateGPUAllReduceToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                             EmulationModule &emu);

/// Barriers and warp collectives: `gpu.barrier`, `gpu.shuffle`,
/// `gpu.rotate`, `gpu.subgroup_broadcast`, `gpu.subgroup_reduce`.
void populateGPUCollectivesToEmulationPatterns(
    mlir::RewritePatternSet &patterns, EmulationModule &emu);

/// Warp matrix instructions: `nvgpu.ldmatrix`, `nvgpu.mma.sync` and
/// `amdgpu.mfma` as warp collectives with the hardware's fragment layouts
/// (runtime/cpu/MatrixOps.cpp computes them).
void populateGPUMatrixOpsToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                             EmulationModule &emu);

/// sm_90 warpgroup MMA: `nvvm.wgmma.fence.aligned`, `nvvm.wgmma.mma_async`
/// (A and B through shared-memory matrix descriptors, decoded with the
/// hardware's layouts and swizzles by runtime/cpu/WarpgroupMma.cpp),
/// `nvvm.wgmma.commit.group.sync.aligned`,
/// `nvvm.wgmma.wait.group.sync.aligned`.
void populateNVVMWarpgroupMmaToEmulationPatterns(
    mlir::RewritePatternSet &patterns, EmulationModule &emu);

/// `gpu.printf` calls `printf`; a kernel's `cf.assert` fails the launch
/// with its message when its condition is false.
void populateGPUPrintfToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                          EmulationModule &emu);

/// Asynchronous copies (`nvgpu.device_async_copy`, `_create_group`,
/// `_wait`): issued and landed by the runtime, per thread and group.
void populateNVGPUAsyncCopyToEmulationPatterns(
    mlir::RewritePatternSet &patterns, EmulationModule &emu);

/// Hopper's `nvgpu.mbarrier.*` (a group is 8 bytes per barrier of the
/// block's workgroup memory; arrivals, expected transaction bytes and
/// parity waits run in the runtime) and `nvgpu.tma.async.load` (a bulk
/// tensor copy that lands when its barrier is first waited on; with a
/// multicast mask, in each block of the cluster the mask names), the
/// prefetch dropped (runtime/cpu/Tma.cpp); `nvgpu.tma.async.store` with
/// `nvvm.cp.async.bulk.commit.group`, `.wait_group` and `nvvm.fence.proxy`
/// (runtime/cpu/TmaStore.cpp).
void populateNVGPUTmaToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                         EmulationModule &emu);

/// Thread block clusters (sm_90): `nvvm.cluster.arrive(.relaxed)` and
/// `nvvm.cluster.wait` (the cluster barrier), `nvvm.mapa` and
/// `nvvm.mbarrier.arrive` on a block's own or a peer's mbarrier (distributed
/// shared memory), `nvvm.fence.mbarrier.init` (a no-op); the cluster's ids
/// are index queries (populateGPUIndexToEmulationPatterns).
void populateNVVMClusterToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                            EmulationModule &emu);

/// Approximate (`afn`) f32 math of a fast-math kernel (ext-gpu-fast-math):
/// exp2, a division, rsqrt and tanh computed correctly rounded with the
/// NVIDIA instructions' flushing of subnormal inputs and results
/// (ex2.approx.ftz, rcp.approx.ftz, rsqrt.approx.ftz; tanh.approx keeps
/// them), so within those instructions' documented error of the GPU's.
void lowerApproximateMathToEmulation(mlir::Operation *root);

/// Host code: nvgpu.tma.create.descriptor builds the tensor map in the
/// runtime and the kernels receive its address (their tensor-map arguments
/// become i64, cast back to the map type for the ops that use them).
mlir::LogicalResult lowerNVGPUTensorMaps(EmulationModule &emu);

/// Rewrites `func`'s nvgpu warpgroup ops (generate.descriptor,
/// mma.init.accumulator, mma, mma.store) into what a GPU runs, with
/// upstream's convert-nvgpu-to-nvvm patterns: 64-bit matrix descriptors,
/// `nvvm.wgmma.*` per 64-row block and k step, and the accumulator's stores
/// in the instruction's register layout; accumulators carried through scf
/// ops as LLVM structs. WarpgroupMmaToEmulation.cpp.
mlir::LogicalResult lowerNVGPUWarpgroupOps(mlir::Operation *func);

/// Host code: `gpu.launch_func` calls __ext_emu_launch; gpu memory ops become
/// memref code; stream and registration ops go (everything is synchronous).
void populateGPUHostToEmulationPatterns(mlir::RewritePatternSet &patterns,
                                        EmulationModule &emu);

/// The function __ext_emu_launch runs per thread for `kernel`: it unpacks the
/// kernel's arguments from `void **` and calls it.
mlir::LogicalResult buildEmulationTrampoline(EmulationModule &emu,
                                             KernelInfo &kernel);

/// What ext-cpu-pipeline runs to put gpu kernels (gpu.launch) on the CPU
/// emulator: ext-subgroup-mma-to-lanes, gpu-kernel-outlining,
/// ext-instrument-global-accesses when `racecheck`, then
/// ext-gpu-to-cpu-emulation. `pm` runs on a builtin.module.
void addCpuEmulationPasses(mlir::OpPassManager &pm, bool racecheck);

} // namespace ext

#endif // EXT_CONVERSION_GPUTOCPUEMULATION_GPUTOCPUEMULATION_H
