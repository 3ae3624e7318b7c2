//===- TileLoweringState.h - per-launch tile lowering state -----*- C++ -*-===//
//
// The facts about one gpu.launch that the tile lowering's units
// (TileLowering.h) share while they lower its tile ops in order: the
// rewriter, the thread id and block size, the fragments lowered so far,
// barrier numbering, and the copy pipeline's bookkeeping (whether commits
// and waits are cp.async's, their group tokens, register-staged stores
// waiting for their commit, loops that copy into shared memory). A plain
// class: the units reach it only through this API.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGSTATE_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGSTATE_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace ext {
namespace tile_lowering {

/// A lowered ext.alloc_fragment.
struct FragmentInfo {
  mlir::Value storage; // the thread's private buffer
  llvm::SmallVector<int64_t> shape, threads;
  FragmentLayoutAttrInterface layout;
};

/// A register-staged copy's stores to shared memory, emitted at the next
/// ext.copy_commit of its block.
struct StagedStores {
  mlir::Location loc;
  mlir::Value target, staging, active;
  int64_t width, numVectors;
};

/// What the lowerings of one gpu.launch's tile ops share.
class LaunchState {
public:
  LaunchState(mlir::gpu::LaunchOp launch, int &barrierCounter, int dropBarrier,
              std::optional<ChipInfo> chip)
      : launch(launch), rw(launch.getContext()), barrierCounter(barrierCounter),
        dropBarrier(dropBarrier), chip(std::move(chip)), dominance(launch) {}

  /// Reads the block size (constant and one-dimensional, or an error) and
  /// creates the thread id at the start of the launch body.
  llvm::LogicalResult setUpThreads();

  mlir::gpu::LaunchOp getLaunch() const { return launch; }
  mlir::IRRewriter &getRewriter() { return rw; }
  /// The chip the kernel is lowered for, when known.
  const std::optional<ChipInfo> &getChip() const { return chip; }
  /// The thread's linear id in the block (`gpu.thread_id x`).
  mlir::Value getThreadId() const { return tid; }
  int64_t getBlockThreads() const { return blockThreads; }
  /// The threads that run `op`: the block's, or in a warp-specialized
  /// kernel's consumer region, the consumers' (kRoleThreadsAttrName).
  int64_t getThreadsAt(mlir::Operation *op) const;
  /// `op`'s thread id: the block's, or in a region whose groups of threads
  /// each work on their own (kRoleLocalIdsAttrName), the id in the group.
  mlir::Value getThreadIdAt(mlir::Operation *op);

  /// Records `fragment` (an ext.alloc_fragment's result) as lowered.
  void addFragment(mlir::Value fragment, FragmentInfo info) {
    fragments[fragment] = std::move(info);
  }
  /// The lowering of fragment `v`; null when `v` is not a fragment.
  const FragmentInfo *lookupFragment(mlir::Value v) const {
    auto it = fragments.find(v);
    return it == fragments.end() ? nullptr : &it->second;
  }
  bool isFragment(mlir::Value v) const { return fragments.count(v) != 0; }
  /// Where the thread reads and writes `v`: a fragment's private buffer, or
  /// `v` itself.
  mlir::Value storageOf(mlir::Value v) const {
    const FragmentInfo *info = lookupFragment(v);
    return info ? info->storage : v;
  }

  /// A private (per-thread) buffer of the launch.
  mlir::Value addPrivateBuffer(mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape, mlir::Type elem);
  /// A workgroup scratch buffer, allocated at the start of the launch body
  /// (as ext.alloc_shared, for ext-alloc-shared-to-workgroup).
  mlir::Value newScratch(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                         mlir::Type elem);

  /// A gpu.barrier at the rewriter's insertion point, unless it is the
  /// `drop-barrier`-th the pass inserts (barriers are numbered across the
  /// launches of the pass, in the order they are requested).
  void insertBarrier(mlir::Location loc);

  /// Whether any staged copy of the launch is a cp.async (then every commit
  /// and wait lowers to nvgpu's, so group counts stay uniform).
  bool usesAsyncCopies() const { return asyncCopies; }
  void setUsesAsyncCopies(bool uses) { asyncCopies = uses; }
  void addGroupToken(mlir::Value token) { groupTokens.push_back(token); }
  /// The latest copy group token that properly dominates `op`; null when
  /// none does.
  mlir::Value dominatingGroupToken(mlir::Operation *op);

  /// Defers `stores` to the next ext.copy_commit of `block`.
  void deferStagedStores(mlir::Block *block, StagedStores stores) {
    pendingStores[block].push_back(std::move(stores));
  }
  /// The stores deferred to a commit in `block`, which no longer wait.
  llvm::SmallVector<StagedStores> takeStagedStores(mlir::Block *block);

  /// Records a loop of the launch that copies into shared memory.
  void addCopyLoop(mlir::scf::ForOp loop) { copyLoops.insert(loop); }
  llvm::ArrayRef<mlir::scf::ForOp> getCopyLoops() const {
    return copyLoops.getArrayRef();
  }

private:
  mlir::gpu::LaunchOp launch;
  mlir::IRRewriter rw;
  int &barrierCounter;
  int dropBarrier;
  std::optional<ChipInfo> chip;
  mlir::Value tid;
  /// Per region of local ids, the thread's id in its group.
  llvm::DenseMap<mlir::Operation *, mlir::Value> localIds;
  int64_t blockThreads = 0;
  llvm::DenseMap<mlir::Value, FragmentInfo> fragments;
  llvm::DenseMap<mlir::Block *, llvm::SmallVector<StagedStores>> pendingStores;
  bool asyncCopies = false;
  llvm::SmallVector<mlir::Value> groupTokens;
  llvm::SetVector<mlir::scf::ForOp> copyLoops;
  mlir::DominanceInfo dominance;
};

} // namespace tile_lowering
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGSTATE_H
