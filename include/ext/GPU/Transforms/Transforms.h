//===- Transforms.h - ext's gpu transforms, one op at a time ----*- C++ -*-===//
//
// The work of each pass in Passes.td on one kernel, launch or function, so
// that a transform-dialect op, the Python bindings or a plugin can run it
// without a pass manager. The passes walk the IR and call these.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_GPU_TRANSFORMS_TRANSFORMS_H
#define EXT_GPU_TRANSFORMS_TRANSFORMS_H

#include "ext/GPU/Transforms/Passes.h"
#include "ext/Model/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace ext {

/// ext-gpu-reuse-shared-memory on one kernel (a gpu.launch or a gpu.func with a
/// body): packs its static workgroup buffers into one i8 workgroup buffer,
/// sharing bytes between buffers never live together, inserts the barriers
/// that reuse needs, and records the footprint as `ext.shared_memory_bytes`.
/// `options` are the pass's (report, min-alignment, exact-limit,
/// drop-hazard-barriers).
mlir::LogicalResult
reuseSharedMemory(mlir::Operation *kernel,
                  const ExtGPUReuseSharedMemoryOptions &options = {});

/// ext-gpu-promote-workgroup-allocs on one function: its workgroup
/// memref.alloc/alloca become workgroup attributions. Fails, with an error
/// at each, on allocations that cannot get static storage.
mlir::LogicalResult promoteWorkgroupAllocs(mlir::gpu::GPUFuncOp func);

/// ext-gpu-stage-kernel-operands on one synchronous launch: host memrefs
/// passed to it are copied into device buffers around it. `symbols` caches
/// the kernel lookup across calls.
mlir::LogicalResult
stageKernelOperands(mlir::gpu::LaunchFuncOp launch,
                    mlir::SymbolTableCollection &symbols);

/// ext-gpu-check-target-support under `root`: reports, at the op, every GPU
/// op that `chip` cannot run. Changes nothing.
mlir::LogicalResult checkTargetSupport(mlir::Operation *root,
                                       const ChipInfo &chip);

/// ext-gpu-bank-conflicts on one kernel (a gpu.launch or a kernel gpu.func):
/// a remark at every workgroup-memory access with its worst-case bank
/// conflict over a warp, and with `options.summary` a table on stderr.
/// Changes nothing; fails, with an error, when `options.chip` has no bank
/// model.
mlir::LogicalResult
reportBankConflicts(mlir::Operation *kernel,
                    const ExtGPUBankConflictsOptions &options = {});

} // namespace ext

#endif // EXT_GPU_TRANSFORMS_TRANSFORMS_H
