//===- WarpSpecialization.h - the warp-specialized k-loop --------*- C++ -*-===//
//
// `specialize = cooperative | pingpong`: the checks and the
// ext.warp_specialize k-loop (WarpSpecializedKLoop.cpp); ext-kernel-to-gpu
// turns that op into the kernel's roles (Conversion/KernelToGPU/
// WarpSpecializedRoles.cpp). Private to ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_WARPSPECIALIZATION_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_WARPSPECIALIZATION_H

#include "TileIR.h"
#include "TmaLoads.h"

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// Reports at `op` what warp specialization cannot do with this plan: other
/// than warpgroup MMAs, attached producers, a split reduction.
mlir::LogicalResult
checkWarpSpecialization(ComputeOp op, const TilingPlan &plan,
                        ScheduleAttr schedule,
                        FragmentLayoutAttrInterface layout, size_t numAttached,
                        TileDecompositionAttrInterface decomposition);

/// The k-loop of `specialize = cooperative` (WarpSpecializedKLoop.cpp): an
/// ext.warp_specialize whose producer thread copies each k-step's tiles by
/// TMA once its stage is empty, and the consumers' loop that waits for the
/// stage to be full, computes, and releases it (a step later with MMAs in
/// flight). Stages and phases continue from the CTA's previous units
/// (ext.pipeline_base).
void emitWarpSpecializedKLoop(
    mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
    const TilingPlan &plan, ScheduleAttr schedule, const TileFrame &frame,
    mlir::Value kBegin, mlir::Value kEnd,
    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs, bool mmaInFlight,
    const TmaLoads &tma, bool weakenRelease,
    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>,
                            llvm::ArrayRef<mlir::Value>, mlir::ValueRange)>
        compute);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_WARPSPECIALIZATION_H
