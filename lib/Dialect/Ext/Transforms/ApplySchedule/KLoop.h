//===- KLoop.h - the k-loop's strategies -------------------------*- C++ -*-===//
//
// The k-loop of a tile: its ragged last step and the pipelined loop over
// `stages` shared buffers (KLoop.cpp). Private to ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_KLOOP_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_KLOOP_H

#include "TileIR.h"
#include "TmaLoads.h"

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// The k-steps of a unit [kBegin, kEnd): full ones run with a constant bound
/// in [kBegin, fullEnd). A ragged last step either runs as a full one, when
/// the copies' zero fill makes the body yield the combiner's identity, or
/// is peeled (`peeled`): fullEnd stops before step `last` and
/// `emitPeeledStep` runs it with its own bound `rest`, at offset
/// `lastOffset` = last * tileK along the axis (constants over a static
/// extent, values read from the operand's size over a dynamic one).
struct KSteps {
  int64_t tileK = 1;
  bool peeled = false;
  mlir::Value fullEnd, last, lastOffset, rest;
};

KSteps planKSteps(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
                  const TilingPlan &plan, mlir::Value kEnd);

/// Emits `body(steps.last)` under `kEnd > steps.last`. kEnd is the same in
/// every thread of the CTA: the branch does not diverge.
void emitPeeledStep(mlir::RewriterBase &rw, mlir::Location loc,
                    const KSteps &steps, mlir::Value kEnd,
                    llvm::function_ref<void(mlir::Value)> body);

/// The k-loop of a schedule with `stages = N >= 2` over the unit's
/// [kBegin, kEnd): step k computes on buffer k mod N of every cached input.
///
///   prologue: for s < N-1: copy step kBegin+s (if < kEnd); commit
///   for k in [kBegin, fullEnd):
///     wait (all but the newest N-2 groups) + barrier
///     copy step k+N-1 into buffer (k+N-1) mod N = (k-1) mod N (if < kEnd)
///     compute step k; commit
///   [peeled ragged step: wait + barrier; compute with the ragged bound]
///   wait for everything + barrier (the buffers may be reused after)
///
/// Every prologue step and iteration commits a group, copies or not, so the
/// group of step k is always the (k - kBegin)-th and `pending = N-2` covers
/// it. The copy into (k-1) mod N comes after the barrier that follows every
/// thread's compute of step k-1, so one barrier per step suffices.
///
/// With `mmaInFlight` (N >= 3, a warpgroup MMA compute) the copies run N-2
/// steps ahead instead, into (k-2) mod N, and the loop is marked
/// kMmaInFlightAttrName: the compute of step k may leave its MMAs in flight
/// until step k+1's have issued (wgmma.wait_group 1), since the barrier of
/// step k+1 follows every warpgroup's retirement of step k-1's group only.
///
/// With `tma`, one thread loads each step's tiles with bulk tensor copies
/// that complete on the stage's mbarrier (initialized at the unit's start,
/// invalidated at its end, so a CTA's next unit starts at phase 0); each
/// step waits on its stage's mbarrier at the phase of its fill, after the
/// barrier that orders the new copies behind every thread's use of the
/// stage they refill.
void emitPipelinedKLoop(
    mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
    const TilingPlan &plan, ScheduleAttr schedule,
    const ApplyScheduleOptions &options, const TileFrame &frame,
    mlir::Value kBegin, mlir::Value kEnd,
    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs, bool mmaInFlight,
    const TmaLoads *tma,
    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>,
                            llvm::ArrayRef<mlir::Value>, mlir::ValueRange)>
        compute);

/// Buffer `stage` of a pipelined input's `bufs` (one per stage): a chain of
/// selects tagged as stage selects, which shared-memory lowering folds.
mlir::Value selectStage(mlir::RewriterBase &rw, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> bufs, mlir::Value stage);

/// The stage after `stage` of `stages`, wrapping to 0 (a compare and a
/// select, no division), and whether it wrapped (an mbarrier's phase flips).
std::pair<mlir::Value, mlir::Value> nextStage(mlir::RewriterBase &rw,
                                              mlir::Location loc,
                                              mlir::Value stage,
                                              int64_t stages);

/// The tile operands of a pipelined k-step at `offsets`: stage `stage` of
/// each cached input, a view of the others.
llvm::SmallVector<mlir::Value>
stepOperands(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
             const TilingPlan &plan,
             llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs,
             mlir::Value stage, llvm::ArrayRef<mlir::Value> offsets);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_KLOOP_H
