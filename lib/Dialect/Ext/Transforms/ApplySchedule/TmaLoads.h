//===- TmaLoads.h - loads and stores by the copy engine ----------*- C++ -*-===//
//
// Tensor maps and bulk tensor copies of `tma = true` (TmaLoads.cpp, the
// issue in KLoop.cpp). Private to ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TMALOADS_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TMALOADS_H

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// The loads of a k-loop through the Tensor Memory Accelerator (`tma =
/// true`, TmaLoads.cpp): per cached input, its tensor map (built by the host
/// before the kernel; null for the other inputs), and the bytes one k-step's
/// copies bring to their stage's mbarrier.
struct TmaLoads {
  llvm::SmallVector<mlir::Value> maps;
  int64_t bytesPerStep = 0;
};

/// Checks that the chip has the copy engine and every cached input's tile is
/// a box it writes in ext's layout of the tile; reports at `op` otherwise.
mlir::LogicalResult checkTmaLoads(ComputeOp op, const TilingPlan &plan,
                                  ScheduleAttr schedule,
                                  const ApplyScheduleOptions &options);

/// The tensor map (built by the host before `kernel`) through which the
/// epilogue stores output `output`'s shared tile `staging` (cached as
/// `cache`) by one bulk tensor store; null, saying why in `why`, where the
/// copy engine cannot (the output's layout, a padded tile, a box too big).
mlir::Value buildTmaStoreMap(mlir::RewriterBase &rw, ComputeOp op,
                             unsigned output, mlir::MemRefType staging,
                             CacheAttr cache, mlir::Operation *kernel,
                             std::string &why);

/// Builds the tensor maps of a checked plan before `kernel`.
TmaLoads buildTmaLoads(mlir::RewriterBase &rw, ComputeOp op,
                       const TilingPlan &plan, mlir::Operation *kernel);

/// One thread's issue of a k-step's bulk tensor copies (at `offsets`) into
/// `stage` of every cached input: `arrive.expect_tx` of their bytes on the
/// stage's mbarrier in `barriers`, then one copy per input.
/// With a thread block cluster, an input's copy may be one CTA's for
/// several: issued where `issue` holds, into the CTAs of `mask` (i16, by
/// rank). Null members: the CTA's own copy.
struct TmaMulticast {
  mlir::Value issue, mask;
};
void issueTmaCopies(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
                    const TilingPlan &plan, const TmaLoads &tma,
                    llvm::ArrayRef<mlir::Value> offsets, mlir::Value barriers,
                    mlir::Value stage,
                    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs,
                    llvm::ArrayRef<TmaMulticast> multicast = {});

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TMALOADS_H
