//===- TileOpsToThreads.cpp - tile ops to per-thread code -----------------===//
//
// ext-tile-ops-to-threads: in every gpu.launch, the tile ops (fragments,
// copies, tile computes, the copy pipeline's commits and waits) become the
// code each thread runs, with barriers between them. This file holds the
// pass, the dispatch over a launch's tile ops with the barriers it places,
// and the helpers the lowerings share; the lowerings live in TileCopies.cpp,
// TileCompute.cpp and ElementwiseAccumulation.cpp (see TileLowering.h).
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace ext {
#define GEN_PASS_DEF_EXTTILEOPSTOTHREADS
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

Value tile_lowering::andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value r;
  for (Value c : conds)
    r = r ? arith::AndIOp::create(b, loc, r, c).getResult() : c;
  return r;
}

int64_t tile_lowering::elementBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

bool tile_lowering::outerStridesDivisible(ArrayRef<int64_t> strides,
                                          int64_t w) {
  return llvm::all_of(strides.drop_back(), [&](int64_t s) {
    return !ShapedType::isDynamic(s) && s % w == 0;
  });
}

int64_t tile_lowering::runVectorWidth(int64_t run, int64_t maxWidth,
                                      ArrayRef<int64_t> strides, int64_t offset,
                                      int64_t constant) {
  int64_t w = std::min(maxWidth, run);
  w = w > 1 ? int64_t(1) << llvm::Log2_64(w) : 1;
  while (w > 1 && run % w != 0)
    w /= 2;
  if (ShapedType::isDynamic(offset))
    return 1;
  while (w > 1 && (offset % w != 0 || constant % w != 0 ||
                   !outerStridesDivisible(strides, w)))
    w /= 2;
  return w;
}

LogicalResult LaunchLowering::lowerFragment(AllocFragmentOp op) {
  auto type = cast<MemRefType>(op.getType());
  SmallVector<int64_t> local = op.getLayoutOrDefault().getLocalShape(
      type.getShape(), op.getThreads());
  // A private attribution of the launch: after outlining it is an alloca
  // in the kernel's entry block, which LLVM promotes to registers once the
  // (unrolled) accesses use constant indices.
  auto space = gpu::AddressSpaceAttr::get(rw.getContext(),
                                          gpu::AddressSpace::Private);
  Value storage = launch.addPrivateAttribution(
      MemRefType::get(local, type.getElementType(), MemRefLayoutAttrInterface(),
                      space),
      op.getLoc());
  fragments[op.getResult()] = {storage, llvm::to_vector(type.getShape()),
                               llvm::to_vector(op.getThreads()),
                               op.getLayoutOrDefault()};
  return success();
}

LogicalResult LaunchLowering::run() {
  SmallVector<Operation *> tileOps;
  launch.getBody().walk([&](Operation *op) {
    if (isa<AllocFragmentOp, CopyOp, CopyCommitOp, CopyWaitOp, StoreTileOp,
            TileComputeOp>(op))
      tileOps.push_back(op);
    if (auto copy = dyn_cast<CopyOp>(op);
        copy && copy.getStaged() == CopyStaging::async) {
      std::string why;
      Type elem = cast<MemRefType>(copy.getTarget().getType()).getElementType();
      if (isAsyncCopyWidth(copyVectorWidth(copy, why) * elementBytes(elem)))
        usesAsyncCopies = true;
    }
  });
  if (tileOps.empty())
    return success();

  std::optional<int64_t> bx = getConstantIntValue(launch.getBlockSizeX());
  std::optional<int64_t> by = getConstantIntValue(launch.getBlockSizeY());
  std::optional<int64_t> bz = getConstantIntValue(launch.getBlockSizeZ());
  if (!bx || !by || !bz || *by != 1 || *bz != 1)
    return launch.emitOpError("with ext tile ops needs a constant "
                              "one-dimensional block size");
  blockThreads = *bx;
  rw.setInsertionPointToStart(&launch.getBody().front());
  tid = gpu::ThreadIdOp::create(rw, launch.getLoc(), gpu::Dimension::x);

  llvm::SetVector<scf::ForOp> copyLoops;
  for (auto [i, op] : llvm::enumerate(tileOps)) {
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](AllocFragmentOp f) { return lowerFragment(f); })
            .Case([&](CopyOp c) { return lowerCopy(c); })
            .Case([&](StoreTileOp st) { return lowerStoreTile(st); })
            .Case([&](CopyCommitOp c) { return lowerCopyCommit(c); })
            .Case([&](CopyWaitOp w) { return lowerCopyWait(w); })
            .Case([&](TileComputeOp tc) { return lowerTileCompute(tc); });
    if (failed(result))
      return failure();
    auto copy = dyn_cast<CopyOp>(op);
    // Staged copies synchronize through ext.copy_wait.
    if (!copy || copy.getStaged())
      continue;
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        cast<MemRefType>(copy.getTarget().getType()).getMemorySpace());
    if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
      continue;
    // Other threads read what this copy wrote: a barrier after the group
    // of copies it belongs to (index arithmetic between copies does not end
    // the group).
    Operation *next = op->getNextNode();
    while (next && next->getNumRegions() == 0 && isMemoryEffectFree(next))
      next = next->getNextNode();
    if (!isa_and_nonnull<CopyOp>(next) || cast<CopyOp>(next).getStaged()) {
      rw.setInsertionPointAfter(op);
      insertBarrier(op->getLoc());
    }
    if (auto loop = op->getParentOfType<scf::ForOp>();
        loop && launch->isProperAncestor(loop))
      copyLoops.insert(loop);
  }
  // The next iteration's copies overwrite what this iteration's compute
  // reads: a barrier at the end of every loop that copies into shared memory.
  for (scf::ForOp loop : copyLoops) {
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    insertBarrier(loop.getLoc());
  }
  for (Operation *op : llvm::reverse(tileOps)) {
    if (auto frag = dyn_cast<AllocFragmentOp>(op)) {
      if (!frag->use_empty())
        frag.getResult().replaceAllUsesWith(fragments[frag.getResult()].storage);
    }
    rw.eraseOp(op);
  }
  return success();
}

namespace {
/// The element-wise layouts' strategy: register blocking.
template <typename LayoutAttr>
struct ElementwiseAccumulationModel
    : TileAccumulationAttrInterface::ExternalModel<
          ElementwiseAccumulationModel<LayoutAttr>, LayoutAttr> {
  LogicalResult emitAccumulation(Attribute, TileAccumulationContext &context,
                                 Operation *op) const {
    return context.emitElementwise(cast<TileComputeOp>(op));
  }
};
} // namespace

void ext::registerTileAccumulationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, ExtDialect *) {
    CyclicLayoutAttr::attachInterface<
        ElementwiseAccumulationModel<CyclicLayoutAttr>>(*ctx);
    BlockedLayoutAttr::attachInterface<
        ElementwiseAccumulationModel<BlockedLayoutAttr>>(*ctx);
    attachMmaAccumulationModel(ctx);
  });
}

LogicalResult ext::lowerTileOpsToThreads(gpu::LaunchOp launch, int dropBarrier,
                                         int *barrierCount, StringRef chip) {
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
  return LaunchLowering(launch, barrierCount ? *barrierCount : local,
                        dropBarrier, chip)
      .run();
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
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    int counter = 0;
    for (gpu::LaunchOp launch : launches)
      if (failed(lowerTileOpsToThreads(launch, dropBarrier, &counter, chip)))
        return signalPassFailure();
    // Tile ops outside any launch have no threads to run on.
    WalkResult r = getOperation()->walk([](Operation *op) {
      if (isa<CopyOp, CopyCommitOp, CopyWaitOp, StoreTileOp, TileComputeOp,
              AllocFragmentOp>(op)) {
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
