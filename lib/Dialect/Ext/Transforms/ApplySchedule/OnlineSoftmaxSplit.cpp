//===- OnlineSoftmaxSplit.cpp - the keys of an online softmax split over CTAs //
//
// A decomposition that splits the reduction (split-K, Stream-K and its
// hybrids, `auto`) gives a tile's key steps to several CTAs, FlashDecoding's
// split-KV. Each work unit runs the key loop over its range and ends with
// the state of the online softmax over those keys: the accumulator, the
// running max m and each running sum l, all relative to exp(h(m)). Two
// such states of one tile combine exactly:
//
//   m  = max(m1, m2)
//   a1 = exp(h(m1) - h(m)),  a2 = exp(h(m2) - h(m))   (0 where m_i = -inf)
//   l  = a1 l1 + a2 l2,      acc = a1 acc1 + a2 acc2
//
// which is the kernel's reducer, over whole fragments (the statistics are
// rows, the accumulator rows x values): the decomposition's fixup (the same
// deterministic tree as a GEMM's) stores partial states to its workspace
// and combines them with it. The tile's owner then runs the epilogue on the
// combined state: the kernel's epilogue region, not the end of its body.
// A unit with no keys (an empty range, or key tiles a causal mask skips)
// leaves the identity: m = -inf, sums and accumulator 0.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

FloatAttr OnlineSoftmaxBuilder::negInfAttr(OpBuilder &b) const {
  return b.getFloatAttr(
      mType, APFloat::getInf(cast<FloatType>(mType).getFloatSemantics(), true));
}

Value OnlineSoftmaxBuilder::isNegInf(OpBuilder &b, Value m) const {
  Value negInf = arith::ConstantOp::create(b, loc, negInfAttr(b));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
}

Value OnlineSoftmaxBuilder::effectiveMax(OpBuilder &b, Value m) const {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(mType));
  return arith::SelectOp::create(b, loc, isNegInf(b, m), zero, m);
}

Block *OnlineSoftmaxBuilder::createBody(TileComputeOp tc,
                                        ArrayRef<TileOperand> ins) {
  SmallVector<Type> types;
  for (const TileOperand &t : ins)
    types.push_back(cast<MemRefType>(t.buffer.getType()).getElementType());
  return rw.createBlock(&tc.getBody(), {}, types,
                        SmallVector<Location>(types.size(), loc));
}

/// The rescale of a state whose max is `m` to the combined max `mEff`
/// (0 where the combination has seen only -inf): exp(h(m) - h(mEff)), 0
/// where m = -inf (nothing was added there), as an f32.
Value OnlineSoftmaxBuilder::rescaleFactor(OpBuilder &b, const OnlineTerm &t,
                                          Value m, Value mEff) {
  auto h = [&](Value x) {
    IRMapping map;
    map.map(t.m, x);
    for (Operation *op : t.hOps)
      b.clone(*op, map);
    return map.lookupOrDefault(t.hm);
  };
  Value isInf = isNegInf(b, m);
  Value d = arith::SubFOp::create(b, loc, h(m), h(mEff));
  Value e = t.base2 ? math::Exp2Op::create(b, loc, d).getResult()
                    : math::ExpOp::create(b, loc, d).getResult();
  Value z = arith::ConstantOp::create(b, loc, b.getZeroAttr(e.getType()));
  Value a = arith::SelectOp::create(b, loc, isInf, z, e);
  if (a.getType() != f32)
    a = arith::ExtFOp::create(b, loc, f32, a);
  return a;
}

/// The fragments a work unit leaves: the accumulator, the running max, the
/// running sums.
SmallVector<Value> OnlineSoftmaxBuilder::splitState() {
  SmallVector<Value> state{acc, mBuf};
  llvm::append_range(state, sumBufs);
  return state;
}

LogicalResult OnlineSoftmaxBuilder::checkSplit() {
  if (scoresInRegisters)
    return success();
  return err() << "splitting the keys over CTAs ("
               << kernelDecomposition
               << ") needs the row statistics in registers, which a "
                  "partial state is stored from: mma with warps [W, 1] "
                  "(each row's scores in one warp)";
}

/// The kernel's reducer over whole fragments: the accumulated state (acc,
/// m, l...) and a partial one (its views in the workspace), combined in
/// place into the first.
void OnlineSoftmaxBuilder::buildCombine(KernelOp kernel) {
  OpBuilder::InsertionGuard guard(rw);
  SmallVector<Value> state = splitState();
  SmallVector<Type> types;
  for (Value v : state)
    types.push_back(v.getType());
  types.append(types.begin(), types.end());
  Block *b = rw.createBlock(&kernel.getReducer(), {}, types,
                            SmallVector<Location>(types.size(), loc));
  unsigned n = state.size();
  auto arg = [&](unsigned i, bool partial) {
    return b->getArgument(i + (partial ? n : 0));
  };
  // Per row: the combined max, each sum combined, the accumulator's two
  // rescales.
  Block *saved = kernelBody;
  kernelBody = b;
  Value alpha = allocRowBuffer("rescale of the accumulated state", f32);
  Value beta = allocRowBuffer("rescale of the partial state", f32);
  kernelBody = saved;
  rw.setInsertionPointToEnd(b);
  SmallVector<TileOperand> ins, outs;
  for (unsigned i = 1; i < n; ++i) {
    ins.push_back({arg(i, false), rowId});
    ins.push_back({arg(i, true), rowId});
    outs.push_back({arg(i, false), rowId});
  }
  outs.push_back({alpha, rowId});
  outs.push_back({beta, rowId});
  auto rowsTc = tileCompute(self, rowOnlyAxes, statThreads, {}, ins, outs, {},
                            false, statLayout);
  Block *rb = createBody(rowsTc, ins);
  OpBuilder ob = OpBuilder::atBlockBegin(rb);
  Value m1 = rb->getArgument(0), m2 = rb->getArgument(1);
  Value m = arith::MaximumFOp::create(ob, loc, m1, m2);
  Value mEff = effectiveMax(ob, m);
  SmallVector<Value> ys{m};
  for (auto [k, t] : llvm::enumerate(sumTerms)) {
    Value l1 = rb->getArgument(2 + 2 * k), l2 = rb->getArgument(3 + 2 * k);
    Value a1 = rescaleFactor(ob, t, m1, mEff), a2 = rescaleFactor(ob, t, m2, mEff);
    if (l1.getType() != f32) {
      a1 = arith::TruncFOp::create(ob, loc, l1.getType(), a1);
      a2 = arith::TruncFOp::create(ob, loc, l1.getType(), a2);
    }
    ys.push_back(arith::AddFOp::create(
        ob, loc, arith::MulFOp::create(ob, loc, a1, l1),
        arith::MulFOp::create(ob, loc, a2, l2)));
  }
  ys.push_back(rescaleFactor(ob, anchorTerm, m1, mEff));
  ys.push_back(rescaleFactor(ob, anchorTerm, m2, mEff));
  YieldOp::create(ob, loc, ys);
  rw.setInsertionPointAfter(rowsTc);

  // acc = alpha * acc + beta * acc'.
  auto accTc = tileCompute(self, accAxes, accThreads, {},
                           {{alpha, accRow}, {beta, accRow},
                            {arg(0, false), accId}, {arg(0, true), accId}},
                           {{arg(0, false), accId}}, {}, false, layout);
  Type accElem = accType.getElementType();
  Block *ab = rw.createBlock(&accTc.getBody(), {}, {f32, f32, accElem, accElem},
                             SmallVector<Location>(4, loc));
  OpBuilder aob = OpBuilder::atBlockBegin(ab);
  Value a1 = ab->getArgument(0), a2 = ab->getArgument(1);
  if (accElem != f32) {
    a1 = arith::TruncFOp::create(aob, loc, accElem, a1);
    a2 = arith::TruncFOp::create(aob, loc, accElem, a2);
  }
  Value sum = arith::AddFOp::create(
      aob, loc, arith::MulFOp::create(aob, loc, a1, ab->getArgument(2)),
      arith::MulFOp::create(aob, loc, a2, ab->getArgument(3)));
  YieldOp::create(aob, loc, sum);
  rw.setInsertionPointToEnd(b);
  YieldOp::create(rw, loc, ValueRange());
}

/// The end of a work unit that may hold part of a tile's keys: the state
/// yielded, and the epilogue (M and the sums stored where read, the
/// accumulator's store or the fused consumer) in the kernel's epilogue
/// region, on the combined state.
LogicalResult OnlineSoftmaxBuilder::emitSplitEnd(KernelOp kernel) {
  SmallVector<Value> state = splitState();
  KernelYieldOp::create(rw, loc, state);
  buildCombine(kernel);

  Block *epilogue = &kernel.getEpilogue().front();
  unsigned numTileDims = plan.tileCounts.size();
  SmallVector<Value> args;
  for (Value v : state)
    args.push_back(epilogue->addArgument(v.getType(), loc));
  acc = args[0];
  mBuf = args[1];
  for (auto [k, buf] : llvm::enumerate(sumBufs))
    buf = args[2 + k];
  rw.setInsertionPoint(epilogue->getTerminator());
  frame = buildFrame(rw, loc, plan,
                     epilogue->getArguments().take_front(numTileDims));
  rowsValid = frame.bounds[rowAxis];
  copies.clear();
  return emitEpilogue();
}
