//===- KernelToGPU.cpp - ext.kernel to gpu.launch -------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {
#define GEN_PASS_DEF_EXTKERNELTOGPU
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// Tile coordinates of linear tile index `tile`. Leading tile dimensions
/// (batches) are outermost; the last two are walked in `raster` order in
/// groups of `swizzle` rows (row raster) or columns (col raster), so that
/// consecutive CTAs share input panels in L2.
SmallVector<Value> delinearizeTile(OpBuilder &b, Location loc, Value tile,
                                   ArrayRef<int64_t> tiles, RasterOrder raster,
                                   int64_t swizzle) {
  unsigned rank = tiles.size();
  SmallVector<Value> coords(rank);
  if (rank == 1) {
    coords[0] = tile;
    return coords;
  }
  int64_t m = tiles[rank - 2], n = tiles[rank - 1];
  Value plane = constIndex(b, loc, m * n);
  Value rest = arith::RemUIOp::create(b, loc, tile, plane);
  Value outer = arith::DivUIOp::create(b, loc, tile, plane);
  for (int d = rank - 3; d >= 0; --d) {
    Value size = constIndex(b, loc, tiles[d]);
    coords[d] = arith::RemUIOp::create(b, loc, outer, size);
    outer = arith::DivUIOp::create(b, loc, outer, size);
  }
  // Grouped order over an (major x minor) grid: `swizzle` majors at a time,
  // minor-fastest inside a group.
  bool rowMajor = raster == RasterOrder::row;
  int64_t major = rowMajor ? m : n, minor = rowMajor ? n : m;
  Value majorIdx, minorIdx;
  if (swizzle <= 1) {
    majorIdx = arith::DivUIOp::create(b, loc, rest, constIndex(b, loc, minor));
    minorIdx = arith::RemUIOp::create(b, loc, rest, constIndex(b, loc, minor));
  } else {
    Value groupSpan = constIndex(b, loc, swizzle * minor);
    Value group = arith::DivUIOp::create(b, loc, rest, groupSpan);
    Value first = arith::MulIOp::create(b, loc, group, constIndex(b, loc, swizzle));
    Value left = arith::SubIOp::create(b, loc, constIndex(b, loc, major), first);
    Value groupSize =
        arith::MinUIOp::create(b, loc, left, constIndex(b, loc, swizzle));
    Value inGroup = arith::RemUIOp::create(b, loc, rest, groupSpan);
    majorIdx = arith::AddIOp::create(
        b, loc, first, arith::RemUIOp::create(b, loc, inGroup, groupSize));
    minorIdx = arith::DivUIOp::create(b, loc, inGroup, groupSize);
  }
  coords[rank - 2] = rowMajor ? majorIdx : minorIdx;
  coords[rank - 1] = rowMajor ? minorIdx : majorIdx;
  return coords;
}

/// Inlines the kernel's regions for the decomposition.
class KernelEmitter : public TileWorkEmitter {
public:
  explicit KernelEmitter(KernelOp kernel) : kernel(kernel) {}

  FailureOr<SmallVector<Value>> emitMainloop(OpBuilder &b, Location loc,
                                             Value tile, Value kBegin,
                                             Value kEnd) override {
    SmallVector<Value> args = coordsOf(b, loc, tile);
    args.push_back(kBegin);
    args.push_back(kEnd);
    return inlineRegion(b, kernel.getBody(), args);
  }

  LogicalResult emitEpilogue(OpBuilder &b, Location loc, Value tile,
                             ValueRange fragments) override {
    SmallVector<Value> args = coordsOf(b, loc, tile);
    llvm::append_range(args, fragments);
    return success(succeeded(inlineRegion(b, kernel.getEpilogue(), args)));
  }

private:
  SmallVector<Value> coordsOf(OpBuilder &b, Location loc, Value tile) {
    return delinearizeTile(b, loc, tile, kernel.getTiles(), kernel.getRaster(),
                           kernel.getSwizzle());
  }

  FailureOr<SmallVector<Value>> inlineRegion(OpBuilder &b, Region &region,
                                             ValueRange args) {
    Block &block = region.front();
    IRMapping mapping;
    mapping.map(block.getArguments(), args);
    for (Operation &op : block.without_terminator())
      b.clone(op, mapping);
    auto yield = cast<KernelYieldOp>(block.getTerminator());
    return llvm::map_to_vector(yield.getFragments(), [&](Value v) {
      return mapping.lookupOrDefault(v);
    });
  }

  KernelOp kernel;
};

} // namespace

FailureOr<gpu::LaunchOp> ext::lowerKernelToGPU(RewriterBase &rw,
                                               KernelOp kernel) {
  Location loc = kernel.getLoc();
  TileDecompositionAttrInterface decomposition = kernel.getDecomposition();
  int64_t numBlocks =
      decomposition.getNumBlocks(kernel.getNumTiles(), kernel.getIters());
  if (numBlocks < 1 || numBlocks > std::numeric_limits<int32_t>::max())
    return kernel.emitOpError() << "decomposition " << decomposition
                                << " asks for " << numBlocks << " CTAs";
  rw.setInsertionPoint(kernel);
  Value one = constIndex(rw, loc, 1);
  Value grid = constIndex(rw, loc, numBlocks);
  Value block = constIndex(rw, loc, kernel.getThreads());
  auto launch = gpu::LaunchOp::create(rw, loc, grid, one, one, block, one, one);
  rw.setInsertionPointToStart(&launch.getBody().front());
  Value blockId = gpu::BlockIdOp::create(rw, loc, gpu::Dimension::x);
  KernelEmitter emitter(kernel);
  if (failed(decomposition.emitWorkUnits(rw, loc, blockId, kernel.getNumTiles(),
                                         kernel.getIters(), emitter)))
    return kernel.emitOpError() << "decomposition " << decomposition
                                << " could not emit its work units";
  gpu::TerminatorOp::create(rw, loc);
  rw.eraseOp(kernel);
  return launch;
}

namespace {

struct ExtKernelToGPUPass
    : ext::impl::ExtKernelToGPUBase<ExtKernelToGPUPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp k) { kernels.push_back(k); });
    IRRewriter rw(&getContext());
    for (KernelOp k : kernels)
      if (failed(lowerKernelToGPU(rw, k)))
        return signalPassFailure();
  }
};

} // namespace
