//===- TileOpsToThreads.cpp - tile ops to per-thread code -----------------===//
//
// ext-tile-ops-to-threads: in every gpu.launch, the tile ops (fragments,
// copies, tile computes, the copy pipeline's commits and waits) become the
// code each thread runs, with barriers between them. This file holds the
// pass and the ordered walk over a launch's tile ops, which dispatches each
// to its family's lowering (TileLowering.h says which file holds which, and
// why a walk rather than a pattern set).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace ext {
#define GEN_PASS_DEF_EXTTILEOPSTOTHREADS
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

namespace {

bool isTileOp(Operation *op) {
  return isa<AllocFragmentOp, CopyOp, CopyCommitOp, CopyWaitOp, StoreTileOp,
             TileComputeOp>(op);
}

/// Lowers the tile ops of `launch` in program order.
LogicalResult lowerLaunch(LaunchState &state) {
  SmallVector<Operation *> tileOps;
  state.getLaunch().getBody().walk([&](Operation *op) {
    if (isTileOp(op))
      tileOps.push_back(op);
  });
  if (tileOps.empty())
    return success();
  scanCopies(state, tileOps);
  if (failed(state.setUpThreads()))
    return failure();
  for (Operation *op : tileOps) {
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case(
                [&](AllocFragmentOp f) { return lowerAllocFragment(state, f); })
            .Case([&](CopyOp c) { return lowerCopy(state, c); })
            .Case([&](StoreTileOp st) { return lowerStoreTile(state, st); })
            .Case([&](CopyCommitOp c) { return lowerCopyCommit(state, c); })
            .Case([&](CopyWaitOp w) { return lowerCopyWait(state, w); })
            .Case(
                [&](TileComputeOp tc) { return lowerTileCompute(state, tc); });
    if (failed(result))
      return failure();
  }
  fenceCopyLoops(state);
  // The ops go once every op is lowered: later ones still look fragments
  // up by the ext.alloc_fragment's result.
  for (Operation *op : llvm::reverse(tileOps)) {
    if (auto frag = dyn_cast<AllocFragmentOp>(op); frag && !frag->use_empty())
      frag.getResult().replaceAllUsesWith(
          state.lookupFragment(frag.getResult())->storage);
    state.getRewriter().eraseOp(op);
  }
  fenceLoopCarriedSharedAccesses(state);
  return success();
}

} // namespace

void ext::registerTileAccumulationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, ExtDialect *) {
    attachElementwiseAccumulationModels(ctx);
    attachMmaAccumulationModel(ctx);
  });
}

LogicalResult
ext::lowerTileOpsToThreads(gpu::LaunchOp launch, int dropBarrier,
                           int *barrierCount,
                           const std::optional<ChipInfo> &chip) {
  // Register blocking emits math.fma and vector loads, tensor cores nvgpu
  // and amdgpu ops, through the layouts' strategies. Under the pass they
  // are its dependent dialects and extensions (already loaded); a C++
  // caller may not have loaded them.
  MLIRContext *ctx = launch.getContext();
  DialectRegistry registry;
  registerTileAccumulationModels(registry);
  ctx->appendDialectRegistry(registry);
  ctx->getOrLoadDialect<math::MathDialect>();
  ctx->getOrLoadDialect<vector::VectorDialect>();
  ctx->getOrLoadDialect<nvgpu::NVGPUDialect>();
  ctx->getOrLoadDialect<amdgpu::AMDGPUDialect>();
  int local = 0;
  LaunchState state(launch, barrierCount ? *barrierCount : local, dropBarrier,
                    chip);
  return lowerLaunch(state);
}

namespace {

struct ExtTileOpsToThreadsPass
    : ext::impl::ExtTileOpsToThreadsBase<ExtTileOpsToThreadsPass> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTileAccumulationModels(registry);
  }
  void runOnOperation() override {
    FailureOr<DeviceFacts> device =
        resolveDevice(getOperation(), "ext-tile-ops-to-threads", chip);
    if (failed(device))
      return signalPassFailure();
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    int counter = 0;
    for (gpu::LaunchOp launch : launches)
      if (failed(lowerTileOpsToThreads(launch, dropBarrier, &counter,
                                       device->chip)))
        return signalPassFailure();
    // Tile ops outside any launch have no threads to run on.
    WalkResult r = getOperation()->walk([](Operation *op) {
      if (isTileOp(op)) {
        op->emitOpError("must be inside a gpu.launch to be lowered to "
                        "threads; run ext-kernel-to-gpu first");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
