//===- IndexOpsToEmulation.cpp - ids and sizes as runtime queries ---------===//
//
// Each id or size a kernel reads is one runtime query per function, made at
// its entry: a fiber's ids never change while it runs. Thread block
// clusters' ids and sizes too, as the gpu dialect names them and as NVVM's
// special registers (i32) read them: %clusterid, %nclusterid,
// %cluster_ctaid, %cluster_nctaid, %cluster_ctarank, %cluster_nctarank.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

/// The blocks of a cluster: the product of its three sizes.
Value clusterBlocks(OpBuilder &b, Location l, EmulationFunction &fn) {
  return arith::MulIOp::create(
      b, l, fn.query(EXT_EMU_CLUSTER_DIM_BLOCKS, 0),
      arith::MulIOp::create(b, l, fn.query(EXT_EMU_CLUSTER_DIM_BLOCKS, 1),
                            fn.query(EXT_EMU_CLUSTER_DIM_BLOCKS, 2)));
}

/// An NVVM special register read: the runtime's query along `dim` (-1:
/// none), or what `build` makes, in the register's integer type.
template <typename Op>
void addRegister(RewritePatternSet &patterns, EmulationModule &emu,
                 StringRef query, int dim) {
  struct Lowering : EmulationOpPattern<Op> {
    Lowering(EmulationModule &emu, StringRef query, int dim)
        : EmulationOpPattern<Op>(emu), query(query), dim(dim) {}
    LogicalResult matchAndRewrite(Op op,
                                  PatternRewriter &rewriter) const override {
      rewriter.setInsertionPoint(op);
      EmulationFunction &fn = this->emu.function();
      Location l = op.getLoc();
      Value v = query.empty() ? clusterBlocks(rewriter, l, fn)
                              : fn.query(query, dim);
      rewriter.replaceOp(op, arith::IndexCastOp::create(
                                 rewriter, l, op.getType(), v));
      return success();
    }
    StringRef query;
    int dim;
  };
  patterns.add<Lowering>(emu, query, dim);
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
  add<gpu::ClusterIdOp>(patterns, emu,
                        [](gpu::ClusterIdOp op, OpBuilder &, F &fn) {
                          return fn.query(EXT_EMU_CLUSTER_ID,
                                          dimOf(op.getDimension()));
                        });
  add<gpu::ClusterDimOp>(patterns, emu,
                         [](gpu::ClusterDimOp op, OpBuilder &, F &fn) {
                           return fn.query(EXT_EMU_CLUSTER_DIM,
                                           dimOf(op.getDimension()));
                         });
  add<gpu::ClusterBlockIdOp>(
      patterns, emu, [](gpu::ClusterBlockIdOp op, OpBuilder &, F &fn) {
        return fn.query(EXT_EMU_CLUSTER_BLOCK_ID, dimOf(op.getDimension()));
      });
  add<gpu::ClusterDimBlocksOp>(
      patterns, emu, [](gpu::ClusterDimBlocksOp op, OpBuilder &, F &fn) {
        return fn.query(EXT_EMU_CLUSTER_DIM_BLOCKS, dimOf(op.getDimension()));
      });
  addRegister<NVVM::ClusterIdXOp>(patterns, emu, EXT_EMU_CLUSTER_ID, 0);
  addRegister<NVVM::ClusterIdYOp>(patterns, emu, EXT_EMU_CLUSTER_ID, 1);
  addRegister<NVVM::ClusterIdZOp>(patterns, emu, EXT_EMU_CLUSTER_ID, 2);
  addRegister<NVVM::ClusterDimXOp>(patterns, emu, EXT_EMU_CLUSTER_DIM, 0);
  addRegister<NVVM::ClusterDimYOp>(patterns, emu, EXT_EMU_CLUSTER_DIM, 1);
  addRegister<NVVM::ClusterDimZOp>(patterns, emu, EXT_EMU_CLUSTER_DIM, 2);
  addRegister<NVVM::BlockInClusterIdXOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_BLOCK_ID, 0);
  addRegister<NVVM::BlockInClusterIdYOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_BLOCK_ID, 1);
  addRegister<NVVM::BlockInClusterIdZOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_BLOCK_ID, 2);
  addRegister<NVVM::ClusterDimBlocksXOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_DIM_BLOCKS, 0);
  addRegister<NVVM::ClusterDimBlocksYOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_DIM_BLOCKS, 1);
  addRegister<NVVM::ClusterDimBlocksZOp>(patterns, emu,
                                         EXT_EMU_CLUSTER_DIM_BLOCKS, 2);
  addRegister<NVVM::ClusterId>(patterns, emu, EXT_EMU_CLUSTER_RANK, -1);
  addRegister<NVVM::ClusterDim>(patterns, emu, "", -1);
}
