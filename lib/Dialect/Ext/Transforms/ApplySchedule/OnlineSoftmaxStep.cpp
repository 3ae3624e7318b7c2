//===- OnlineSoftmaxStep.cpp - one key tile of the online softmax ---------===//
//
// The body of the online-softmax kernel's key loop, phase by phase: the
// scores S of the key tile (on tensor cores into a fragment, or into shared
// memory), the new row max, the rescale alpha of each running sum and of
// the accumulator, the sums of the step, P in the value operand's type for
// the second GEMM, and acc = alpha * acc + P * V.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

static Value yieldOf(const Fused &f) {
  return f.op.getBody().front().getTerminator()->getOperand(0);
}

LogicalResult OnlineSoftmaxBuilder::emitKeyStep() {
  // The value tile's copy first, with the scores' operands: one barrier.
  // Without stages (the step's K and V copied in the step), when Q, K, V
  // and P would not fit the chip's shared memory together, V is copied
  // after the scores instead: its tile is then live only after K's last
  // read, and ext-gpu-reuse-shared-memory gives it K's bytes. The price is
  // a second copy phase in each step (its latency exposed); it is paid only
  // where the tiles would not fit otherwise (a head of 256 on AMD's 64 KB).
  if (!valueAfterScores())
    if (failed(inputTile(self, wInput, /*copy=*/true)))
      return failure();
  if (failed(emitScores()))
    return failure();

  // m_new = max(m, max_j g(S)) over the valid keys.
  if (failed(emitRowReduction(max, mNewBuf, /*foldOld=*/mBuf, false)))
    return failure();
  emitRescale();
  if (failed(emitSharedSoftmaxFactor()))
    return failure();
  // Each other sum: l += sum_j over the valid keys, M read as m_eff.
  for (auto [k, f] : llvm::enumerate(sums))
    if (!fromP[k] && failed(emitRowReduction(f, sumBufs[k], /*foldOld=*/Value(),
                                             /*accumulate=*/true)))
      return failure();
  if (failed(emitSoftmaxFactorTile()))
    return failure();
  return emitAccumulate();
}

/// The scores: the attached producer per k-step, into registers, then shared.
LogicalResult OnlineSoftmaxBuilder::emitScores() {
  if (!scores)
    return success();
  SmallVector<unsigned> sAxes = keptAxes(*scores);
  SmallVector<int> args;
  FailureOr<SmallVector<TileOperand>> ins =
      operands(*scores, args, {yieldOf(*scores)});
  if (failed(ins))
    return failure();
  SmallVector<int64_t> sShape;
  AffineMap sOut = localMap(*scores, scores->op.getOutputMap(0), &sShape);
  Type sElem =
      cast<MemRefType>(scores->op.getOutputs()[0].getType()).getElementType();
  if (!scoresInRegisters)
    sBuf = allocShared("scores", sShape, sElem);
  SmallVector<int64_t> sThreads;
  for (unsigned a : sAxes)
    sThreads.push_back(scores->op.getAxisList()[a].isReduce() ? 1 : 0);
  if (mma) {
    emitScoresOnTensorCores(*ins, args, sShape, sOut, sElem, sThreads);
    return success();
  }
  // Straight into shared memory, the rows and keys over the block.
  for (unsigned k = 0, s = 0; k < sThreads.size(); ++k)
    if (sThreads[k] == 0)
      sThreads[k] = rowKeyThreads[s++];
  auto tc = tileCompute(*scores, sAxes, sThreads, {}, *ins, {{sBuf, sOut}},
                        scores->op.getCombinerAttr(), false,
                        FragmentLayoutAttrInterface());
  fillBody(*scores, tc, args, {yieldOf(*scores)});
  rw.setInsertionPointAfter(tc);
  return success();
}

/// The accumulator's warps over rows x keys: a fragment, kept as the scores
/// in registers or stored to their shared tile.
void OnlineSoftmaxBuilder::emitScoresOnTensorCores(
    ArrayRef<TileOperand> ins, ArrayRef<int> args, ArrayRef<int64_t> sShape,
    AffineMap sOut, Type sElem, ArrayRef<int64_t> reduceThreads) {
  SmallVector<unsigned> sAxes = keptAxes(*scores);
  SmallVector<int64_t> sThreads(reduceThreads);
  for (unsigned k = 0, s = 0; k < sThreads.size(); ++k)
    if (sThreads[k] == 0)
      sThreads[k] = accThreads[s++];
  Value frag = allocFragment(MemRefType::get(sShape, sElem), accThreads, mma);
  AffineMap fragId = AffineMap::getMultiDimIdentityMap(sShape.size(), ctx);
  SmallVector<unsigned> sSpatial;
  for (unsigned a : sAxes)
    if (scores->op.getAxisList()[a].isSpatial())
      sSpatial.push_back(a);
  // Zeros, then accumulated: a GEMM runs on the instruction only as an
  // accumulation into its fragment.
  bool gemm = scores->op.getCombiner() == CombinerKind::sum;
  if (gemm) {
    auto zero = tileCompute(*scores, sSpatial, accThreads, {}, {},
                            {{frag, fragId}}, {}, false, mma);
    Block *zb = rw.createBlock(&zero.getBody());
    OpBuilder zob = OpBuilder::atBlockBegin(zb);
    YieldOp::create(zob, loc,
                    arith::ConstantOp::create(zob, loc, zob.getZeroAttr(sElem))
                        .getResult());
    rw.setInsertionPointAfter(zero);
  }
  auto tc = tileCompute(*scores, sAxes, sThreads, {}, ins, {{frag, sOut}},
                        scores->op.getCombinerAttr(), gemm, mma);
  fillBody(*scores, tc, args, {yieldOf(*scores)});
  rw.setInsertionPointAfter(tc);
  if (scoresInRegisters) {
    sFrag = frag;
    sFragLayout = mma;
    sFragThreads.assign(accThreads.begin(), accThreads.end());
  }
  if (!scoresInRegisters) {
    auto store = tileCompute(*scores, sSpatial, accThreads, {},
                             {{frag, fragId}}, {{sBuf, fragId}}, {}, false, mma);
    Block *b = rw.createBlock(&store.getBody(), {}, {sElem}, {loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    YieldOp::create(ob, loc, b->getArgument(0));
    rw.setInsertionPointAfter(store);
  }
}

/// A reduction of `f` over the step's valid keys into the row buffer `out`:
/// from the scores' fragment in registers where there is one, else across
/// the block's threads. With `foldOld` (M's), `out`'s old value is one more
/// input, folded in with max; a sum accumulates into `out`.
LogicalResult OnlineSoftmaxBuilder::emitRowReduction(const Fused &f, Value out,
                                                     Value foldOld,
                                                     bool accumulate) {
  SmallVector<int> args;
  FailureOr<SmallVector<TileOperand>> ins = operands(f, args, {yieldOf(f)});
  if (failed(ins))
    return failure();
  AffineMap outMap = localMap(f, f.op.getOutputMap(0));
  if (foldOld)
    ins->push_back({foldOld, outMap});
  SmallVector<unsigned> axes = keptAxes(f);
  SmallVector<int64_t> threads;
  SmallVector<Value> bounds;
  for (unsigned a : axes) {
    bool key = static_cast<unsigned>(f.anchorAxis[a]) == kAxis;
    threads.push_back(key ? rowKeyThreads[1] : rowKeyThreads[0]);
    bounds.push_back(key ? kValid : rowsValid);
  }
  if (sFrag)
    threads = sFragThreads;
  auto tc = tileCompute(f, axes, threads, bounds, *ins, {{out, outMap}},
                        f.op.getCombinerAttr(), accumulate, sFragLayout);
  unsigned oldArg = ins->size() - 1;
  auto fold = [&](OpBuilder &b, ArrayRef<Value> v) -> SmallVector<Value> {
    Value old = b.getBlock()->getArgument(oldArg);
    return {arith::MaximumFOp::create(b, loc, v[0], old)};
  };
  if (foldOld)
    fillBody(f, tc, args, {yieldOf(f)}, fold);
  else
    fillBody(f, tc, args, {yieldOf(f)});
  rw.setInsertionPointAfter(tc);
  return success();
}

/// Per row: the rescale of each sum and of the accumulator, the max the
/// step reads (0 while the row has seen only -inf), m = m_new.
void OnlineSoftmaxBuilder::emitRescale() {
  SmallVector<TileOperand> ins{{mNewBuf, rowId}, {mBuf, rowId}};
  SmallVector<TileOperand> outs{{mBuf, rowId}, {mEffBuf, rowId}, {alphaAcc, rowId}};
  for (Value s : sumBufs) {
    ins.push_back({s, rowId});
    outs.push_back({s, rowId});
  }
  auto tc = tileCompute(self, rowOnlyAxes, statThreads, {}, ins, outs, {},
                        false, statLayout);
  Block *b = createBody(tc, ins);
  OpBuilder ob = OpBuilder::atBlockBegin(b);
  Value mNew = b->getArgument(0), mOld = b->getArgument(1);
  Value mEff = effectiveMax(ob, mNew);
  // alpha = exp(h(m_old) - h(m_eff)), 0 while nothing was added.
  auto alphaFor = [&](const OnlineTerm &t) {
    return rescaleFactor(ob, t, mOld, mEff);
  };
  SmallVector<Value> ys{mNew, mEff, alphaFor(anchorTerm)};
  for (auto [k, t] : llvm::enumerate(sumTerms)) {
    Value alpha = alphaFor(t);
    Value l = b->getArgument(2 + k);
    if (l.getType() != alpha.getType())
      alpha = arith::TruncFOp::create(ob, loc, l.getType(), alpha);
    ys.push_back(arith::MulFOp::create(ob, loc, l, alpha));
  }
  YieldOp::create(ob, loc, ys);
  rw.setInsertionPointAfter(tc);
}

/// With the scores in registers, P (the accumulator's exp factor) is
/// computed once into a fragment: each sum whose summand is that same value
/// (the row sum of softmax) folds it from there, and P's shared tile is
/// written from it. One exp per score instead of one per use.
LogicalResult OnlineSoftmaxBuilder::emitSharedSoftmaxFactor() {
  fromP.assign(sums.size(), false);
  if (!sFrag || !pValue.getType().isF32())
    return success();
  AffineMap rowKeyId = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<int> pArgs;
  FailureOr<SmallVector<TileOperand>> pIns =
      operands(self, pArgs, {pValue}, rowKeyAxes);
  if (failed(pIns))
    return failure();
  for (auto [k, f] : llvm::enumerate(sums)) {
    SmallVector<int> args;
    FailureOr<SmallVector<TileOperand>> ins = operands(f, args, {yieldOf(f)});
    if (failed(ins))
      return failure();
    if (sameValue(f, args, *ins, yieldOf(f), self, pArgs, *pIns, pValue))
      fromP[k] = true;
  }
  if (llvm::is_contained(fromP, true)) {
    pFrag = allocFragment(MemRefType::get({rows, keys}, pValue.getType()),
                          sFragThreads, sFragLayout);
    auto tc = tileCompute(self, rowKeyAxes, sFragThreads, {}, *pIns,
                          {{pFrag, rowKeyId}}, {}, false, sFragLayout,
                          /*allSpatial=*/true);
    fillBody(self, tc, pArgs, {pValue});
    rw.setInsertionPointAfter(tc);
  }
  for (auto [f, buf, folded] : llvm::zip(sums, sumBufs, fromP)) {
    if (!folded)
      continue;
    SmallVector<unsigned> axes = keptAxes(f);
    auto tc = tileCompute(
        f, axes, sFragThreads, {rowsValid, kValid}, {{pFrag, rowKeyId}},
        {{buf, localMap(f, f.op.getOutputMap(0))}}, f.op.getCombinerAttr(),
        /*accumulate=*/true, sFragLayout);
    Block *b = rw.createBlock(&tc.getBody(), {}, {pValue.getType()}, {loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    YieldOp::create(ob, loc, b->getArgument(0));
    rw.setInsertionPointAfter(tc);
  }
  return success();
}

/// P over rows x keys, in the value operand's type under mma; 0 past the
/// valid keys (the value tile's copy zero-fills there, but P * 0 must stay
/// 0).
LogicalResult OnlineSoftmaxBuilder::emitSoftmaxFactorTile() {
  AffineMap rowKeyId = AffineMap::getMultiDimIdentityMap(2, ctx);
  wElem =
      cast<MemRefType>(anchor.getInputs()[wInput].getType()).getElementType();
  pElem = mma ? wElem : pValue.getType();
  SmallVector<int64_t> pShape{rows, keys};
  pBuf = allocShared("softmax factor P", pShape, pElem,
                     operandSwizzle(pShape, pElem));
  auto finish = [&](OpBuilder &b, ArrayRef<Value> v) -> SmallVector<Value> {
    Value p = v[0];
    if (!tileDividesExtent(plan, kAxis)) {
      Value j = IndexOp::create(b, loc, b.getIndexType(),
                                plan.axes[kAxis].getName());
      Value in =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, kValid);
      Value z = arith::ConstantOp::create(b, loc, b.getZeroAttr(p.getType()));
      p = arith::SelectOp::create(b, loc, in, p, z);
    }
    if (p.getType() != pElem)
      p = arith::TruncFOp::create(b, loc, pElem, p);
    return {p};
  };
  TileComputeOp tc;
  if (pFrag) {
    // From the fragment computed above.
    tc = tileCompute(self, rowKeyAxes, sFragThreads, {}, {{pFrag, rowKeyId}},
                     {{pBuf, rowKeyId}}, {}, false, sFragLayout,
                     /*allSpatial=*/true);
    Block *b = rw.createBlock(&tc.getBody(), {}, {pValue.getType()}, {loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    YieldOp::create(ob, loc, finish(ob, {b->getArgument(0)}));
  } else {
    SmallVector<int> args;
    FailureOr<SmallVector<TileOperand>> ins =
        operands(self, args, {pValue}, rowKeyAxes);
    if (failed(ins))
      return failure();
    tc = tileCompute(self, rowKeyAxes,
                     sFrag ? ArrayRef<int64_t>(sFragThreads)
                           : ArrayRef<int64_t>(rowKeyThreads),
                     {}, *ins, {{pBuf, rowKeyId}}, {}, false, sFragLayout,
                     /*allSpatial=*/true);
    // fillBody maps the anchor's axes; the tile compute has rows x keys.
    fillBody(self, tc, args, {pValue}, finish);
  }
  rw.setInsertionPointAfter(tc);
  return success();
}

/// acc = alpha * acc + P * W.
LogicalResult OnlineSoftmaxBuilder::emitAccumulate() {
  auto tc = tileCompute(self, accAxes, accThreads, {},
                        {{alphaAcc, accRow}, {acc, accId}}, {{acc, accId}},
                        {}, false, layout);
  Block *b = rw.createBlock(&tc.getBody(), {}, {f32, accType.getElementType()},
                            {loc, loc});
  OpBuilder ob = OpBuilder::atBlockBegin(b);
  Value alpha = b->getArgument(0);
  if (alpha.getType() != accType.getElementType())
    alpha = arith::TruncFOp::create(ob, loc, accType.getElementType(), alpha);
  YieldOp::create(ob, loc,
                  arith::MulFOp::create(ob, loc, alpha, b->getArgument(1)).getResult());
  rw.setInsertionPointAfter(tc);

  FailureOr<TileOperand> w = inputTile(self, wInput, /*copy=*/true);
  if (failed(w))
    return failure();
  SmallVector<unsigned> pvAxes(accAxes);
  pvAxes.push_back(kAxis);
  // P's map over (rows, values, keys): (row, key); W's over its window.
  SmallVector<AffineExpr> pRes;
  pRes.push_back(getAffineDimExpr(0, ctx));
  pRes.push_back(getAffineDimExpr(2, ctx));
  AffineMap pMap = AffineMap::get(3, 0, pRes, ctx);
  // W's local map is over the anchor's kept axes (rows?, values, keys) in
  // axis order; re-express it over (acc axes..., key).
  SmallVector<unsigned> keptA = keptAxes(self);
  SmallVector<AffineExpr> wRes;
  for (AffineExpr e : w->map.getResults()) {
    unsigned anchorA = keptA[cast<AffineDimExpr>(e).getPosition()];
    unsigned pos = llvm::find(pvAxes, anchorA) - pvAxes.begin();
    wRes.push_back(getAffineDimExpr(pos, ctx));
  }
  AffineMap wMap = AffineMap::get(3, 0, wRes, ctx);
  SmallVector<int64_t> pvThreads(accThreads);
  pvThreads.push_back(1);
  AffineMap accMap = AffineMap::get(
      3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
  auto pv = tileCompute(self, pvAxes, pvThreads, {},
                        {{pBuf, pMap}, {w->buffer, wMap}}, {{acc, accMap}},
                        anchor.getCombinerAttr(), true, layout);
  Block *pb = rw.createBlock(&pv.getBody(), {}, {pElem, wElem}, {loc, loc});
  OpBuilder pob = OpBuilder::atBlockBegin(pb);
  Type accElem = accType.getElementType();
  Value p = pb->getArgument(0);
  if (p.getType() != accElem)
    p = arith::ExtFOp::create(pob, loc, accElem, p);
  Value wv = pb->getArgument(1);
  if (wv.getType() != accElem)
    wv = arith::ExtFOp::create(pob, loc, accElem, wv);
  YieldOp::create(pob, loc, arith::MulFOp::create(pob, loc, p, wv).getResult());
  rw.setInsertionPointAfter(pv);
  return success();
}
