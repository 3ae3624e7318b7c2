//===- TileLowering.h - the units of ext-tile-ops-to-threads ----*- C++ -*-===//
//
// ext-tile-ops-to-threads lowers the tile ops of one gpu.launch by families,
// one file each, every file depending only on the layers below it:
//
//   TileOpsToThreads.cpp          the pass: walks a launch's tile ops in
//                                 order and dispatches each to its family
//   TileFragments.cpp             ext.alloc_fragment
//   TileCopies.cpp                ext.copy, ext.store_tile, copy_commit/wait
//   TileCompute.cpp               ext.tile_compute point by point and across
//                                 threads; accumulations to the layout's
//                                 strategy (TileAccumulationAttrInterface)
//   TileThreadCombines.cpp        a reduction's combine across threads
//   ElementwiseAccumulation.cpp   the element-wise strategy (register
//   MmaAccumulation.cpp           blocking), the tensor-core ones (mma.sync,
//   WarpgroupMmaAccumulation.cpp  mfma; wgmma, which Mma hands over to)
//   TileLoopBarriers.cpp          barriers on loops' back edges, last
//   TileLoweringState.{h,cpp}     the per-launch state they share
//   TileLoweringUtils.{h,cpp}     pure helpers (widths, alignment, fma)
//
// An ordered walk, not a RewritePatternSet: the lowering of an op depends on
// the ops before it (fragments lowered earlier, register-staged stores that
// wait for the next commit, cp.async group tokens that must dominate their
// wait, a barrier after a group of copies that looks at the next op), and
// barriers are numbered in program order for `drop-barrier`. The greedy
// driver's worklist order would change all of these; each family instead
// exposes one function per op, the pass calls them in program order.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H

#include "TileLoweringState.h"

namespace ext {
namespace tile_lowering {

//===- TileFragments.cpp --------------------------------------------------===//

/// A private buffer per thread of the fragment's local shape; the op's uses
/// are replaced by it once the launch is lowered.
llvm::LogicalResult lowerAllocFragment(LaunchState &state, AllocFragmentOp op);

//===- TileCopies.cpp -----------------------------------------------------===//

/// Records, before any op is lowered, whether the launch's commits and
/// waits are cp.async's: a commit may come before the copies it commits.
void scanCopies(LaunchState &state, llvm::ArrayRef<mlir::Operation *> ops);
/// The block's threads share the copy's vectors (synchronously, through
/// cp.async, or staged in registers until the commit); a barrier after a
/// group of synchronous copies into shared memory.
llvm::LogicalResult lowerCopy(LaunchState &state, CopyOp op);
llvm::LogicalResult lowerStoreTile(LaunchState &state, StoreTileOp op);
llvm::LogicalResult lowerCopyCommit(LaunchState &state, CopyCommitOp op);
llvm::LogicalResult lowerCopyWait(LaunchState &state, CopyWaitOp op);
/// Once every op is lowered: a barrier at the end of each loop that copies
/// into shared memory.
void fenceCopyLoops(LaunchState &state);

//===- TileLoopBarriers.cpp -----------------------------------------------===//

/// Once the tile ops are lowered and gone: a barrier at the end of each
/// block-uniform loop (scf.for, scf.while) whose next iteration may touch a
/// shared buffer this iteration leaves unordered, one of the two accesses a
/// write (a CTA's work-unit loop rewriting a shared copy its last unit's
/// threads still read).
void fenceLoopCarriedSharedAccesses(LaunchState &state);

//===- TileCompute.cpp ----------------------------------------------------===//

llvm::LogicalResult lowerTileCompute(LaunchState &state, TileComputeOp op);

//===- TileThreadCombines.cpp ---------------------------------------------===//

/// `values` combined with those of the lane `offset` away (xor) in a
/// shuffle of `width` lanes.
llvm::SmallVector<mlir::Value>
combineWithLane(mlir::IRRewriter &rw, mlir::Location loc, CombinerKind kind,
                mlir::Region &reducer, mlir::ValueRange values, int64_t offset,
                mlir::Value width);

/// Combines `accs` across the threads of reduce axis `r` of `op` (on `hr`
/// threads, `stride` apart in the linear thread id, thread coordinate
/// `tr`, `numThreads` in the op's grid); the result is valid in the axis'
/// thread 0.
llvm::SmallVector<mlir::Value>
combineAcrossThreads(LaunchState &state, TileComputeOp op,
                     mlir::ValueRange accs, mlir::Value tr, int64_t hr,
                     int64_t stride, int64_t numThreads);

//===- ElementwiseAccumulation.cpp ----------------------------------------===//

/// Register blocking, the element-wise accumulation every layout can take:
/// per step of the reduce axes, each input's slice for the thread's points
/// is loaded once (vector loads along runs of consecutive points, up to 16
/// bytes), then every point of the register tile is updated from registers.
/// `threadCoords` are each axis' thread coordinate.
llvm::LogicalResult emitOuterProduct(LaunchState &state, TileComputeOp op,
                                     llvm::ArrayRef<mlir::Value> threadCoords,
                                     llvm::ArrayRef<mlir::Value> bounds);

} // namespace tile_lowering
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H
