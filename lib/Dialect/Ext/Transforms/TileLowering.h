//===- TileLowering.h - internals of ext-tile-ops-to-threads ----*- C++ -*-===//
//
// What the files of ext-tile-ops-to-threads share: TileOpsToThreads.cpp (the
// pass and the dispatch over a launch's tile ops), TileCopies.cpp (ext.copy,
// ext.store_tile and the copy pipeline's commits and waits), TileCompute.cpp
// (ext.tile_compute point by point, reductions across threads) and
// ElementwiseAccumulation.cpp (register blocking). The lowering of one
// gpu.launch and the helpers more than one of them uses. Not a public
// header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace ext {
namespace tile_lowering {

mlir::Value andAll(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<mlir::Value> conds);

struct FragmentInfo {
  mlir::Value storage; // the thread's private buffer
  llvm::SmallVector<int64_t> shape, threads;
  FragmentLayoutAttrInterface layout;
};

int64_t elementBytes(mlir::Type t);

/// A multiple every value of `v` is known to be (1 when nothing is known),
/// through constants, +, * and mod by a constant: enough to prove that tile
/// origins (`coordinate * tile + constant`) and vector starts keep vector
/// accesses aligned.
int64_t knownMultiple(mlir::Value v);

/// Whether every stride but the innermost is a static multiple of `w`: rows
/// then start `w`-aligned.
bool outerStridesDivisible(llvm::ArrayRef<int64_t> strides, int64_t w);

/// The widest vector (a power of two, at most `maxWidth` elements) along a
/// thread's run of `run` consecutive elements of a memref's rows, with the
/// memref's `strides` and `offset` and `constant` added to its innermost
/// index: the width divides the run (a vector never crosses the run's end
/// or starts unaligned within it: pairs for a run of 6) and every vector
/// starts aligned to its size. 1 when none is wider.
int64_t runVectorWidth(int64_t run, int64_t maxWidth,
                       llvm::ArrayRef<int64_t> strides, int64_t offset,
                       int64_t constant = 0);

/// Combines like combineAccumulators, but a product yielded into a `sum`
/// becomes one fused multiply-add (`math.fma`, one rounding instead of two:
/// C's -ffp-contract=on inside `acc += a * b`), so that NVPTX and AMDGPU
/// emit fma / v_fma instead of mul.rn + add.rn, which they may not contract.
llvm::SmallVector<mlir::Value>
combineFused(mlir::RewriterBase &rw, mlir::Location loc, TileComputeOp op,
             mlir::ValueRange accs, mlir::ValueRange values);

/// The widest vector (a power of two, at most `vector` elements and 16
/// bytes) in which `op` can move its rows: every vector must start aligned
/// and lie inside one row of the source and of the target. When it is
/// narrower than asked, `why` says "W element(s) at a time instead of V:
/// <reason>".
int64_t copyVectorWidth(CopyOp op, std::string &why);

/// Bytes one cp.async may move.
bool isAsyncCopyWidth(int64_t bytes);

class LaunchLowering;
class AccumulationContext;

/// Register blocking, the element-wise accumulation every layout can take:
/// per step of the reduce axes, each input's slice for the thread's points
/// is loaded once (vector loads along runs of consecutive points, up to 16
/// bytes), then every point of the register tile is updated from registers.
/// `threadCoords` are each axis' thread coordinate.
llvm::LogicalResult emitOuterProduct(LaunchLowering &lowering, TileComputeOp op,
                                     llvm::ArrayRef<mlir::Value> threadCoords,
                                     llvm::ArrayRef<mlir::Value> bounds);

/// Lowers the tile ops of one gpu.launch.
class LaunchLowering {
public:
  LaunchLowering(mlir::gpu::LaunchOp launch, int &barrierCounter,
                 int dropBarrier, llvm::StringRef chip)
      : launch(launch), rw(launch.getContext()), barrierCounter(barrierCounter),
        dropBarrier(dropBarrier), chip(chip), dominance(launch) {}

  llvm::LogicalResult run();

private:
  friend llvm::LogicalResult emitOuterProduct(LaunchLowering &, TileComputeOp,
                                              llvm::ArrayRef<mlir::Value>,
                                              llvm::ArrayRef<mlir::Value>);
  friend class AccumulationContext;
  void insertBarrier(mlir::Location loc) {
    if (barrierCounter++ == dropBarrier)
      return;
    mlir::gpu::BarrierOp::create(rw, loc);
  }
  llvm::LogicalResult lowerFragment(AllocFragmentOp op);
  llvm::LogicalResult lowerCopy(CopyOp op);
  llvm::LogicalResult lowerStoreTile(StoreTileOp op);
  llvm::LogicalResult lowerCopyCommit(CopyCommitOp op);
  llvm::LogicalResult lowerCopyWait(CopyWaitOp op);
  llvm::LogicalResult lowerTileCompute(TileComputeOp op);
  mlir::Value newScratch(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                         mlir::Type elem);

  /// Element of `operand` at domain point `points` (fragment: local `locals`).
  llvm::SmallVector<mlir::Value>
  accessIndices(TileComputeOp op, mlir::Value operand, mlir::AffineMap map,
                llvm::ArrayRef<mlir::Value> points,
                llvm::ArrayRef<mlir::Value> locals);
  llvm::LogicalResult checkFragmentAccess(TileComputeOp op, mlir::Value operand,
                                          mlir::AffineMap map);

  /// Combines `accs` across the threads of reduce axis `r` (on `hr`
  /// threads, `stride` apart in the linear thread id); the result is valid
  /// in the axis' thread 0.
  llvm::SmallVector<mlir::Value>
  combineAcrossThreads(TileComputeOp op, mlir::ValueRange accs, mlir::Value tr,
                       int64_t hr, int64_t stride, int64_t numThreads);

  mlir::gpu::LaunchOp launch;
  mlir::IRRewriter rw;
  int &barrierCounter;
  int dropBarrier;
  std::string chip;
  mlir::Value tid;
  int64_t blockThreads = 0;
  llvm::DenseMap<mlir::Value, FragmentInfo> fragments;
  /// Register-staged copies' stores to shared memory, emitted at the next
  /// ext.copy_commit of their block.
  struct StagedStores {
    mlir::Location loc;
    mlir::Value target, staging, active;
    int64_t width, numVectors;
  };
  llvm::DenseMap<mlir::Block *, llvm::SmallVector<StagedStores>> pendingStores;
  void emitStagedStores(const StagedStores &stores);
  /// Whether any staged copy of the launch is a cp.async (then every commit
  /// and wait lowers to nvgpu's, so group counts stay uniform).
  bool usesAsyncCopies = false;
  llvm::SmallVector<mlir::Value> groupTokens;
  mlir::DominanceInfo dominance;
};

} // namespace tile_lowering
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERING_H
