//===- OnlineSoftmax.h - the online softmax (attention) ----------*- C++ -*-===//
//
// The kernel of a schedule with `online` (OnlineSoftmax*.cpp). Private to
// ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_ONLINESOFTMAX_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_ONLINESOFTMAX_H

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// The kernel of a schedule with `online` (OnlineSoftmax.cpp): the max
/// reduction and sums it names fused with `op` into one pass over the keys,
/// the scores producer attached at the keys computed per k-step; a failure,
/// reported at `op`, for computes that are not of the online-softmax shape.
mlir::FailureOr<KernelOp>
applyOnlineSoftmax(mlir::RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                   TilingPlan &plan, FragmentLayoutAttrInterface layout,
                   llvm::ArrayRef<mlir::StringAttr> inlined,
                   const ApplyScheduleOptions &options);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_ONLINESOFTMAX_H
