//===- CollectivesToEmulation.cpp - barriers and warp collectives ---------===//
//
// Threads exchange values through the block's scratch (one slot per thread)
// between rendezvous the runtime provides: a block barrier or a warp sync.
// Reductions combine in lane (or thread) order, so every thread gets the
// same bits.
//
//===----------------------------------------------------------------------===//

#include "EmulationPatterns.h"
#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <type_traits>

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// `a op b` for a gpu reduction kind (the op verifiers checked the types).
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(lhs.getType()));
  using K = gpu::AllReduceOperation;
  switch (kind) {
  case K::ADD:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case K::MUL:
    return isFloat ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case K::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case K::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case K::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case K::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case K::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case K::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case K::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case K::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case K::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case K::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case K::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown gpu reduction kind");
}

/// After each lane published its value in `buf` and met the warp: reads the
/// slot of lane `srcLane` of the same warp where `valid` (else its own), and
/// meets the warp again so no slot is overwritten before it is read.
/// Returns the value read and whether it came from `srcLane`.
std::pair<Value, Value> exchange(EmulationFunction &fn, OpBuilder &b,
                                 Operation *op, Value buf, Value srcLane,
                                 Value valid, Value width) {
  Location l = op->getLoc();
  Value src = arith::AddIOp::create(b, l, fn.warpBase(), srcLane);
  // A source beyond the block (a partial last warp) is not valid either.
  Value inBlock = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, src,
                                        fn.blockThreads());
  valid = arith::AndIOp::create(b, l, valid, inBlock);
  Value index = arith::SelectOp::create(b, l, valid, src, fn.linearThreadId());
  Value result = memref::LoadOp::create(b, l, buf, index);
  fn.warpSync(b, op, width);
  return {result, valid};
}

/// Publishes `value` in this thread's scratch slot `buf` and meets the lanes
/// below `width` of its warp: the start of every warp exchange. Returns the
/// lanes that took part.
Value publishToWarp(EmulationFunction &fn, OpBuilder &b, Operation *op,
                    Value buf, Value value, Value width) {
  memref::StoreOp::create(b, op->getLoc(), value, buf, fn.linearThreadId());
  return fn.warpSync(b, op, width);
}

/// A collective exchanging a value through the block's scratch: it checks
/// the op, then builds before it, the scratch viewed as the exchanged
/// value's type (an error where a thread's slot cannot hold it).
template <typename Op> struct ScratchExchangeLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;

  /// An error on `op` where the emulation cannot run it.
  virtual LogicalResult checkSupported(Op op) const { return success(); }
  /// Builds the exchange of `value` through `scratch` and replaces `op`.
  virtual LogicalResult lowerExchange(Op op, Value value, Value scratch,
                                      EmulationFunction &fn,
                                      PatternRewriter &rewriter) const = 0;

  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const final {
    if (failed(checkSupported(op)))
      return failure();
    EmulationFunction &fn = this->emu.function();
    rewriter.setInsertionPoint(op);
    Value value;
    if constexpr (std::is_same_v<Op, gpu::SubgroupBroadcastOp>)
      value = op.getSrc();
    else
      value = op.getValue();
    FailureOr<Value> scratch = fn.scratch(rewriter, op, value.getType());
    if (failed(scratch))
      return failure();
    return lowerExchange(op, value, *scratch, fn, rewriter);
  }
};

struct AllReduceLowering : ScratchExchangeLowering<gpu::AllReduceOp> {
  using ScratchExchangeLowering::ScratchExchangeLowering;
  LogicalResult checkSupported(gpu::AllReduceOp op) const override {
    if (!op.getOp() && !op.getBody().hasOneBlock())
      return op.emitOpError("with a multi-block reduction region is not "
                            "supported by the CPU emulation");
    return success();
  }
  LogicalResult lowerExchange(gpu::AllReduceOp op, Value value, Value buf,
                              EmulationFunction &fn,
                              PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    Region &body = op.getBody();
    // Every thread publishes its value, then combines all of them in thread
    // order (the same bits in every thread), then waits until all have read.
    memref::StoreOp::create(b, l, value, buf, fn.linearThreadId());
    fn.barrier(b, op);
    Value first = memref::LoadOp::create(b, l, buf, emuIndexConst(b, l, 0));
    auto loop =
        scf::ForOp::create(b, l, emuIndexConst(b, l, 1), fn.blockThreads(),
                           emuIndexConst(b, l, 1), ValueRange{first});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value acc = loop.getRegionIterArgs()[0];
      Value x = memref::LoadOp::create(b, l, buf, loop.getInductionVar());
      Value next;
      if (auto kind = op.getOp()) {
        next = combine(b, l, *kind, acc, x);
      } else {
        Block &block = body.front();
        IRMapping mapping;
        mapping.map(block.getArgument(0), acc);
        mapping.map(block.getArgument(1), x);
        for (Operation &inner : block.without_terminator())
          b.clone(inner, mapping);
        auto yield = dyn_cast<gpu::YieldOp>(block.getTerminator());
        if (!yield || yield.getNumOperands() != 1)
          return op.emitOpError("reduction region must end in gpu.yield of "
                                "one value");
        next = mapping.lookupOrDefault(yield.getOperand(0));
      }
      scf::YieldOp::create(b, l, next);
    }
    fn.barrier(b, op);
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// nvvm.barrier: the block's barrier without operands, a named barrier
/// (bar.sync id, count) with both; reductions are not emulated.
struct NVVMBarrierLowering : EmulationOpPattern<NVVM::BarrierOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::BarrierOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getReductionOp() || op->getNumResults())
      return rewriter.notifyMatchFailure(op, "a barrier reduction");
    rewriter.setInsertionPoint(op);
    Value id = op.getBarrierId(), count = op.getNumberOfThreads();
    if (!id && !count)
      emu.function().barrier(rewriter, op);
    else if (id && count)
      emu.call(rewriter, op.getLoc(), EXT_EMU_NAMED_BARRIER, {},
               {id, count, emu.function().site(rewriter, op)});
    else
      return rewriter.notifyMatchFailure(op, "a barrier id without a count");
    rewriter.eraseOp(op);
    return success();
  }
};

/// NVVM's shfl.sync with clamp width-1.
struct ShuffleLowering : ScratchExchangeLowering<gpu::ShuffleOp> {
  using ScratchExchangeLowering::ScratchExchangeLowering;
  LogicalResult lowerExchange(gpu::ShuffleOp op, Value value, Value buf,
                              EmulationFunction &fn,
                              PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    publishToWarp(fn, b, op, buf, value, op.getWidth());
    // The source lane and whether it is inside [0, width).
    Value lane = arith::IndexCastOp::create(b, l, b.getI32Type(), fn.laneId());
    Value offset = op.getOffset(), width = op.getWidth();
    Value last = arith::SubIOp::create(b, l, width, emuI32Const(b, l, 1));
    Value src;
    Value srcValid;
    using P = arith::CmpIPredicate;
    switch (op.getMode()) {
    case gpu::ShuffleMode::XOR:
      src = arith::XOrIOp::create(b, l, lane, offset);
      break;
    case gpu::ShuffleMode::DOWN:
      src = arith::AddIOp::create(b, l, lane, offset);
      break;
    case gpu::ShuffleMode::UP:
      src = arith::SubIOp::create(b, l, lane, offset);
      srcValid = arith::CmpIOp::create(b, l, P::sge, src, emuI32Const(b, l, 0));
      break;
    case gpu::ShuffleMode::IDX:
      src = offset;
      break;
    }
    if (!srcValid)
      srcValid = arith::CmpIOp::create(b, l, P::ule, src, last);
    Value laneValid = arith::CmpIOp::create(b, l, P::ult, lane, width);
    Value valid = arith::AndIOp::create(b, l, srcValid, laneValid);
    Value srcIndex = arith::IndexCastOp::create(b, l, b.getIndexType(), src);
    auto [result, resultValid] =
        exchange(fn, b, op, buf, srcIndex, valid, width);
    rewriter.replaceOp(op, {result, resultValid});
    return success();
  }
};

struct RotateLowering : ScratchExchangeLowering<gpu::RotateOp> {
  using ScratchExchangeLowering::ScratchExchangeLowering;
  LogicalResult lowerExchange(gpu::RotateOp op, Value value, Value buf,
                              EmulationFunction &fn,
                              PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    int64_t width = op.getWidth(), offset = op.getOffset();
    Value widthValue = emuI32Const(b, l, width);
    publishToWarp(fn, b, op, buf, value, widthValue);
    // ((lane + offset) & (width - 1)) + (lane & ~(width - 1))
    Value lane = fn.laneId();
    Value rotated = arith::AndIOp::create(
        b, l, arith::AddIOp::create(b, l, lane, emuIndexConst(b, l, offset)),
        emuIndexConst(b, l, width - 1));
    Value group =
        arith::AndIOp::create(b, l, lane, emuIndexConst(b, l, ~(width - 1)));
    Value src = arith::AddIOp::create(b, l, rotated, group);
    Value valid = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, lane,
                                        emuIndexConst(b, l, width));
    auto [result, resultValid] =
        exchange(fn, b, op, buf, src, valid, widthValue);
    rewriter.replaceOp(op, {result, resultValid});
    return success();
  }
};

struct BroadcastLowering : ScratchExchangeLowering<gpu::SubgroupBroadcastOp> {
  using ScratchExchangeLowering::ScratchExchangeLowering;
  LogicalResult checkSupported(gpu::SubgroupBroadcastOp op) const override {
    Type type = op.getSrc().getType();
    if (!type.isIntOrIndexOrFloat() && !isa<VectorType>(type))
      return op.emitOpError("on ") << type << " is not supported by the CPU "
                                              "emulation";
    return success();
  }
  LogicalResult lowerExchange(gpu::SubgroupBroadcastOp op, Value value,
                              Value buf, EmulationFunction &fn,
                              PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    Value width = fn.warpSizeI32(b, l);
    Value mask = publishToWarp(fn, b, op, buf, value, width);
    Value src;
    if (op.getBroadcastType() == gpu::BroadcastType::first_active_lane) {
      // The lowest lane that took part in the rendezvous.
      Value first = math::CountTrailingZerosOp::create(b, l, mask);
      src = arith::IndexCastOp::create(b, l, b.getIndexType(), first);
    } else {
      src = arith::IndexCastUIOp::create(b, l, b.getIndexType(), op.getLane());
    }
    Value valid = arith::ConstantIntOp::create(b, l, b.getI1Type(), 1);
    Value result = exchange(fn, b, op, buf, src, valid, width).first;
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SubgroupReduceLowering : ScratchExchangeLowering<gpu::SubgroupReduceOp> {
  using ScratchExchangeLowering::ScratchExchangeLowering;
  LogicalResult lowerExchange(gpu::SubgroupReduceOp op, Value value, Value buf,
                              EmulationFunction &fn,
                              PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    std::optional<uint32_t> clusterSize = op.getClusterSize();
    Value size =
        clusterSize ? emuIndexConst(b, l, *clusterSize) : fn.warpSize();
    int64_t stride = op.getClusterStride();
    memref::StoreOp::create(b, l, value, buf, fn.linearThreadId());
    Value mask = fn.warpSync(b, op, fn.warpSizeI32(b, l));
    // The cluster's first lane: (lane % stride) + lane / (size*stride) * span.
    Value lane = fn.laneId();
    Value span = arith::MulIOp::create(b, l, size, emuIndexConst(b, l, stride));
    Value base = arith::AddIOp::create(
        b, l, arith::RemUIOp::create(b, l, lane, emuIndexConst(b, l, stride)),
        arith::MulIOp::create(b, l, arith::DivUIOp::create(b, l, lane, span),
                              span));
    // Combine the cluster's lanes that took part, in lane order, so every
    // lane of the cluster computes the same bits.
    Value falseValue = arith::ConstantIntOp::create(b, l, b.getI1Type(), 0);
    auto loop = scf::ForOp::create(b, l, emuIndexConst(b, l, 0), size,
                                   emuIndexConst(b, l, 1),
                                   ValueRange{value, falseValue});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value acc = loop.getRegionIterArgs()[0];
      Value have = loop.getRegionIterArgs()[1];
      Value member = arith::AddIOp::create(
          b, l, base,
          arith::MulIOp::create(b, l, loop.getInductionVar(),
                                emuIndexConst(b, l, stride)));
      Value member64 =
          arith::IndexCastOp::create(b, l, b.getI64Type(), member);
      Value bit = arith::AndIOp::create(
          b, l, arith::ShRUIOp::create(b, l, mask, member64),
          arith::ConstantIntOp::create(b, l, b.getI64Type(), 1));
      Value present = arith::CmpIOp::create(
          b, l, arith::CmpIPredicate::ne, bit,
          arith::ConstantIntOp::create(b, l, b.getI64Type(), 0));
      auto ifOp = scf::IfOp::create(
          b, l, present,
          [&](OpBuilder &tb, Location tl) {
            Value slot = arith::AddIOp::create(tb, tl, fn.warpBase(), member);
            Value x = memref::LoadOp::create(tb, tl, buf, slot);
            Value combined = combine(tb, tl, op.getOp(), acc, x);
            Value next = arith::SelectOp::create(tb, tl, have, combined, x);
            Value trueValue =
                arith::ConstantIntOp::create(tb, tl, tb.getI1Type(), 1);
            scf::YieldOp::create(tb, tl, ValueRange{next, trueValue});
          },
          [&](OpBuilder &eb, Location el) {
            scf::YieldOp::create(eb, el, ValueRange{acc, have});
          });
      scf::YieldOp::create(b, l, ifOp.getResults());
    }
    fn.warpSync(b, op, fn.warpSizeI32(b, l));
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void ext::populateGPUAllReduceToEmulationPatterns(RewritePatternSet &patterns,
                                                  EmulationModule &emu) {
  patterns.add<AllReduceLowering>(emu);
}

void ext::populateGPUCollectivesToEmulationPatterns(
    RewritePatternSet &patterns, EmulationModule &emu) {
  patterns.add<RuntimeCallLowering<gpu::BarrierOp>>(emu, EXT_EMU_BARRIER);
  patterns.add<NVVMBarrierLowering, ShuffleLowering, RotateLowering,
               BroadcastLowering, SubgroupReduceLowering>(emu);
}
