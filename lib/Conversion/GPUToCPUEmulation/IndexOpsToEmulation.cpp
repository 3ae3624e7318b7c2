//===- IndexOpsToEmulation.cpp - ids and sizes as runtime queries ---------===//
//
// Each id or size a kernel reads is one runtime query per function, made at
// its entry: a fiber's ids never change while it runs.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// Replaces an id or size op with what `build` makes of the function's entry
/// values. Outlining materializes every id of gpu.launch; unused ones go
/// rather than query the runtime in every thread.
template <typename Op>
struct IndexOpLowering : EmulationOpPattern<Op> {
  using Build = Value (*)(Op, OpBuilder &, EmulationFunction &);
  IndexOpLowering(EmulationModule &emu, Build build)
      : EmulationOpPattern<Op>(emu), build(build) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (op->use_empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.setInsertionPoint(op);
    rewriter.replaceOp(op, build(op, rewriter, this->emu.function()));
    return success();
  }

private:
  Build build;
};

int dimOf(gpu::Dimension d) { return int(d); }

template <typename Op>
void add(RewritePatternSet &patterns, EmulationModule &emu,
         typename IndexOpLowering<Op>::Build build) {
  patterns.add<IndexOpLowering<Op>>(emu, build);
}

} // namespace

void ext::populateGPUIndexToEmulationPatterns(RewritePatternSet &patterns,
                                              EmulationModule &emu) {
  using F = EmulationFunction;
  add<gpu::ThreadIdOp>(patterns, emu, [](gpu::ThreadIdOp op, OpBuilder &,
                                         F &fn) {
    return fn.threadId(dimOf(op.getDimension()));
  });
  add<gpu::BlockIdOp>(patterns, emu,
                      [](gpu::BlockIdOp op, OpBuilder &, F &fn) {
                        return fn.blockId(dimOf(op.getDimension()));
                      });
  add<gpu::BlockDimOp>(patterns, emu,
                       [](gpu::BlockDimOp op, OpBuilder &, F &fn) {
                         return fn.blockDim(dimOf(op.getDimension()));
                       });
  add<gpu::GridDimOp>(patterns, emu,
                      [](gpu::GridDimOp op, OpBuilder &, F &fn) {
                        return fn.gridDim(dimOf(op.getDimension()));
                      });
  add<gpu::GlobalIdOp>(
      patterns, emu, [](gpu::GlobalIdOp op, OpBuilder &b, F &fn) -> Value {
        int d = dimOf(op.getDimension());
        return arith::AddIOp::create(
            b, op.getLoc(), fn.threadId(d),
            arith::MulIOp::create(b, op.getLoc(), fn.blockId(d),
                                  fn.blockDim(d)));
      });
  add<gpu::LaneIdOp>(patterns, emu, [](gpu::LaneIdOp, OpBuilder &, F &fn) {
    return fn.laneId();
  });
  add<gpu::SubgroupSizeOp>(
      patterns, emu,
      [](gpu::SubgroupSizeOp, OpBuilder &, F &fn) { return fn.warpSize(); });
  add<gpu::SubgroupIdOp>(
      patterns, emu, [](gpu::SubgroupIdOp op, OpBuilder &b, F &fn) -> Value {
        return arith::DivUIOp::create(b, op.getLoc(), fn.linearThreadId(),
                                      fn.warpSize());
      });
  add<gpu::NumSubgroupsOp>(
      patterns, emu, [](gpu::NumSubgroupsOp op, OpBuilder &b, F &fn) -> Value {
        return arith::CeilDivUIOp::create(b, op.getLoc(), fn.blockThreads(),
                                          fn.warpSize());
      });
}
