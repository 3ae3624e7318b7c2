//===- ScheduleResolution.h - the schedule resolved for a chip ---*- C++ -*-===//
//
// The decomposition and fragment layout a schedule gets on the chip, and
// the shared-tile swizzle wgmma reads (ScheduleResolution.cpp). Private to
// ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_SCHEDULERESOLUTION_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_SCHEDULERESOLUTION_H

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// Resolves the schedule's decomposition for the chip: `auto` becomes its
/// cost model's choice, a Stream-K attribute gets the SM count.
mlir::FailureOr<TileDecompositionAttrInterface>
resolveDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                     int64_t tiles, int64_t iters, int64_t tileK,
                     const ApplyScheduleOptions &options);

/// The same for a tile count or an iteration count (ShapedType::kDynamic)
/// known only at launch: the decomposition plans there (`auto` chooses
/// there, with the cost of a fixup from `tileK`), so only the SM count is
/// filled in; `report` says what is left to the launch.
mlir::FailureOr<TileDecompositionAttrInterface>
resolveLaunchDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                           int64_t tiles, int64_t iters, int64_t tileK,
                           const ApplyScheduleOptions &options);

/// The fragment layout of a schedule: its `layout`, or for an `mma` schedule
/// the instruction's accumulator layout over the warps, the instruction
/// chosen for the chip and the inputs' type when it is `auto`.
mlir::FailureOr<FragmentLayoutAttrInterface>
resolveLayout(ComputeOp op, ScheduleAttr schedule, const TilingPlan &plan,
              const ApplyScheduleOptions &options);

/// With `mma = auto` on a chip with wgmma, where the warps and tile suit it:
/// the schedule (set on `op` too) with each of the product's two inputs
/// that is cached without a layout given the swizzle wgmma's descriptors
/// read, so that auto picks wgmma; else `schedule` unchanged.
ScheduleAttr swizzleCachesForAutoWgmma(ComputeOp op, ScheduleAttr schedule,
                                       const TilingPlan &plan,
                                       const ApplyScheduleOptions &options);

/// The layout wgmma's descriptors read for a 16-bit shared tile whose rows
/// are `columns` elements: rows of W = 32, 64 or 128 bytes swizzled by
/// #ext.swizzle<bits = log2(W / 16), base = 3, shift = 3>, wider rows as
/// 128-byte column panels. Null when the rows fit none of them.
SwizzleAttr wgmmaOperandSwizzle(mlir::MLIRContext *ctx, int64_t columns,
                                mlir::Type elem);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_SCHEDULERESOLUTION_H
