//===- Transforms.h - ext's transforms, callable one op at a time -*- C++ -*-===//
//
// The work of each ext pass on one op, so that a transform-dialect op, the
// Python bindings or a plugin can run it without a pass manager. The passes
// (Passes.td) walk the IR and call these.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_TRANSFORMS_H
#define EXT_DIALECT_EXT_TRANSFORMS_TRANSFORMS_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {

/// What ext-apply-schedule knows beyond the IR.
struct ApplyScheduleOptions {
  /// The chip (when known): its SM count sizes Stream-K grids and `auto`'s
  /// cost model, an mma schedule's instruction must exist on it, and
  /// `mma = auto` picks one for it.
  DeviceFacts device;
  /// Emit a remark with the decomposition (and `auto`'s candidates).
  bool report = false;
  /// The chip has asynchronous global-to-shared copies (NVIDIA sm_80 and
  /// later): pipelined stages use them unless the schedule says async=false.
  bool asyncCopies = false;
  /// Tests only: pipelined k-loops wait for one copy group fewer than they
  /// must, or with wgmma groups in flight copy one step too far ahead, to
  /// show that the emulator catches it.
  bool weakenAsyncWait = false;
};

/// ext-apply-schedule on one op: replaces `op`, which must carry a
/// #ext.schedule, by the tile-level ext.kernel its schedule describes, its
/// decomposition resolved for `options.device` (`auto` chosen, Stream-K
/// given the SM count). Reports at `op` and fails (leaving the IR
/// unchanged) when the schedule cannot be applied.
mlir::FailureOr<KernelOp>
applySchedule(mlir::RewriterBase &rewriter, ComputeOp op,
              const ApplyScheduleOptions &options = {});

/// ext-tile-ops-to-threads on one launch: rewrites the tile ops
/// (ext.alloc_fragment, ext.copy, ext.tile_compute) in `launch` into code
/// each thread runs, with the barriers they need. Barriers are numbered
/// from `*barrierCount` on (0 when null; it is advanced), and the one
/// numbered `dropBarrier` is omitted (tests only; -1 keeps all). With
/// `chip`, matrix instructions of #ext.mma layouts must exist on it.
mlir::LogicalResult
lowerTileOpsToThreads(mlir::gpu::LaunchOp launch, int dropBarrier = -1,
                      int *barrierCount = nullptr,
                      const std::optional<ChipInfo> &chip = std::nullopt);

/// ext-alloc-shared-to-workgroup on `ops`: each becomes a workgroup
/// attribution of its enclosing gpu.launch or gpu.func, padded per its
/// storage_align and viewed through a memref.reinterpret_cast. A swizzled
/// one becomes a flat attribution and every access of it (scalar and vector
/// loads and stores, cp.async into it, ldmatrix from it, through selects
/// among such tiles) an access at the swizzled offset. Fails with an error
/// at an op outside a kernel, or at a use of a swizzled tile it cannot
/// rewrite (or whose vector it cannot prove stays contiguous).
mlir::LogicalResult
lowerAllocSharedToWorkgroup(mlir::RewriterBase &rewriter,
                            llvm::ArrayRef<AllocSharedOp> ops);

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_TRANSFORMS_H
