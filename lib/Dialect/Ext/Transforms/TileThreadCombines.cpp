//===- TileThreadCombines.cpp - a reduction's combine across threads ------===//
//
// When a tile compute's reduce axis is spread over threads, the partial
// values meet here: xor shuffles within a warp (or wave), across warps
// through a small scratch buffer, or a halving tree in workgroup memory
// where shuffles cannot carry the values. Apart from TileCompute.cpp since
// it is the one part of a tile compute's lowering that synchronizes
// threads.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "TileLoweringUtils.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

SmallVector<Value> tile_lowering::combineWithLane(IRRewriter &rw, Location loc,
                                                  CombinerKind kind,
                                                  Region &reducer,
                                                  ValueRange values,
                                                  int64_t offset, Value width) {
  Value off = arith::ConstantIntOp::create(rw, loc, offset, 32);
  SmallVector<Value> partner;
  for (Value x : values)
    partner.push_back(
        gpu::ShuffleOp::create(rw, loc, x, off, width, gpu::ShuffleMode::XOR)
            .getShuffleResult());
  return combineAccumulators(rw, loc, kind, reducer, values, partner);
}

SmallVector<Value>
tile_lowering::combineAcrossThreads(LaunchState &state, TileComputeOp op,
                                    ValueRange accs, Value tr, int64_t hr,
                                    int64_t stride, int64_t numThreads) {
  Location loc = op.getLoc();
  IRRewriter &rw = state.getRewriter();
  Value tid = state.getThreadIdAt(op);
  CombinerKind kind = *op.getCombiner();
  SmallVector<Value> v(accs);
  bool shuffleable = llvm::all_of(accs, [](Value a) {
    Type t = a.getType();
    return t.isF32() || t.isInteger(32);
  });
  // Shuffles span the chip's whole warp or wave: gpu.shuffle's `width`
  // counts lanes from lane 0 (the first `width` lanes take part), so on a
  // 64-lane AMD wave a width of 32 would leave the upper half out.
  int64_t warpSize = state.getChip() ? state.getChip()->warpSize : 32;
  bool fullWarps = numThreads % warpSize == 0;
  if (stride == 1 && shuffleable && (fullWarps || hr <= numThreads)) {
    int64_t width = fullWarps ? warpSize : numThreads;
    if (!fullWarps && !llvm::isPowerOf2_64(numThreads))
      width = -1;
    if (width > 0) {
      Value widthV = arith::ConstantIntOp::create(rw, loc, width, 32);
      for (int64_t s = std::min<int64_t>(hr, warpSize) / 2; s >= 1; s /= 2)
        v = combineWithLane(rw, loc, kind, op.getReducer(), v, s, widthV);
      if (hr <= warpSize)
        return v;
      // Across the warps of a group: lane 0 of each warp publishes its
      // value, then the group's thread 0 folds them.
      int64_t warps = hr / warpSize, groups = numThreads / hr;
      Value group =
          arith::DivUIOp::create(rw, loc, tid, constIndex(rw, loc, hr));
      Value warp =
          arith::DivUIOp::create(rw, loc, tr, constIndex(rw, loc, warpSize));
      Value lane =
          arith::RemUIOp::create(rw, loc, tr, constIndex(rw, loc, warpSize));
      SmallVector<Value> scratch;
      for (Value x : v)
        scratch.push_back(state.newScratch(loc, {groups, warps}, x.getType()));
      state.insertBarrier(loc); // earlier readers of the scratch are done
      Value isLane0 = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                            lane, constIndex(rw, loc, 0));
      scf::IfOp::create(rw, loc, isLane0, [&](OpBuilder &b, Location l) {
        for (auto [x, s] : llvm::zip(v, scratch))
          memref::StoreOp::create(b, l, x, s, ValueRange{group, warp});
        scf::YieldOp::create(b, l);
      });
      state.insertBarrier(loc);
      SmallVector<Value> acc;
      for (Value s : scratch)
        acc.push_back(memref::LoadOp::create(
            rw, loc, s, ValueRange{group, constIndex(rw, loc, 0)}));
      auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 1),
                                     constIndex(rw, loc, warps),
                                     constIndex(rw, loc, 1), acc);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> other;
        for (Value s : scratch)
          other.push_back(memref::LoadOp::create(
              rw, loc, s, ValueRange{group, loop.getInductionVar()}));
        SmallVector<Value> carried =
            llvm::to_vector_of<Value>(loop.getRegionIterArgs());
        scf::YieldOp::create(rw, loc,
                             combineAccumulators(rw, loc, kind, op.getReducer(),
                                                 carried, other));
      }
      return llvm::to_vector_of<Value>(loop.getResults());
    }
  }

  // Workgroup-memory tree: log2(hr) halving steps, a barrier after each.
  SmallVector<Value> scratch;
  for (Value x : v)
    scratch.push_back(state.newScratch(loc, {numThreads}, x.getType()));
  state.insertBarrier(loc); // earlier readers of the scratch are done
  for (auto [x, s] : llvm::zip(v, scratch))
    memref::StoreOp::create(rw, loc, x, s, tid);
  state.insertBarrier(loc);
  for (int64_t s = hr / 2; s >= 1; s /= 2) {
    Value active = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, tr,
                                         constIndex(rw, loc, s));
    Value partnerTid =
        arith::AddIOp::create(rw, loc, tid, constIndex(rw, loc, s * stride));
    scf::IfOp::create(rw, loc, active, [&](OpBuilder &b, Location l) {
      SmallVector<Value> mine, theirs;
      for (Value sc : scratch) {
        mine.push_back(memref::LoadOp::create(b, l, sc, tid));
        theirs.push_back(memref::LoadOp::create(b, l, sc, partnerTid));
      }
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
      SmallVector<Value> c =
          combineAccumulators(rw, l, kind, op.getReducer(), mine, theirs);
      for (auto [x, sc] : llvm::zip(c, scratch))
        memref::StoreOp::create(rw, l, x, sc, tid);
      scf::YieldOp::create(rw, l);
    });
    state.insertBarrier(loc);
  }
  SmallVector<Value> result;
  for (Value sc : scratch)
    result.push_back(memref::LoadOp::create(rw, loc, sc, tid));
  return result;
}
