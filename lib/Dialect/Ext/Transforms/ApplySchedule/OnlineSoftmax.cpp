//===- OnlineSoftmax.cpp - the online-softmax rewrite in ext-apply-schedule ==//
//
// A schedule's `online = ["M", "L", ...]` fuses a max reduction M and sums
// over the same reduce axis j into the scheduled compute (a sum over j, the
// "anchor"), FlashAttention's way: one pass over j in k-steps, where each
// step
//
//   m_new  = max(m, max_j g(S))                      (M's body)
//   alpha  = exp(h(m) - h(m_new))                    (per fused sum)
//   l      = alpha * l + sum_j exp(u - h(m_new)) * w (each L)
//   acc    = alpha * acc + sum_j P * V               (the anchor, P = exp(..))
//
// This is exact because every summand that reads M does so only in a factor
// exp(u - h(M)) (or exp2): exp(u - h(m_final)) = exp(u - h(m_k)) *
// exp(h(m_k) - h(m_final)), the product of the later steps' alphas. The pass
// checks that shape and builds the tile-level kernel: a producer of the
// scores attached at j (compute_at) runs per k-step on tensor cores under
// `mma` into a fragment, which the row max and the sums fold in registers
// (ext.tile_compute's fragment reduction) and P is computed from; without
// tensor cores, or with a row split over warps, the scores go through a
// shared tile instead. With the scores in registers, the row statistics
// are registers too (fragments of the MMA layout's row slice, each lane
// holding its rows' values), P is computed once into a fragment that the
// sums whose summand it is fold; otherwise the statistics live in shared
// memory. P is written in the value operand's type to a shared tile for
// the second GEMM, the accumulator stays in registers, and the windows
// that move with the keys are copied `stages - 1` steps ahead; the
// epilogue consumer (reverse_compute_at) reads M and the Ls where they
// are. Nothing of the size of S reaches global memory.
//
// A row whose scores seen so far are all -inf contributes zero terms (its
// statistics are evaluated at 0 instead of -inf), so masked prefixes do not
// poison later steps with NaN; a row with no finite score at all ends with
// zero sums, where the unfused computes would give NaN (FlashAttention's
// behaviour).
//
// A key tile that a causal-style mask in every fused body (`select(j <= i +
// c, x, -inf)`, read off the IR) hides from the whole row tile is skipped.
//
// This file builds the kernel around the key loop; what is fused is read
// off the IR in OnlineSoftmaxAnalysis.cpp, one key tile's phases are in
// OnlineSoftmaxStep.cpp and the tile operands in OnlineSoftmaxOperands.cpp.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"
#include "ScheduleResolution.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

/// The tile's shape and threads, before any IR: one row axis with a tile
/// over 1, a split of the block over rows x keys, and under mma an
/// accumulator of rows x values.
LogicalResult OnlineSoftmaxBuilder::planTile() {
  block = schedule.getNumThreads();
  SmallVector<int64_t> rowShape;
  for (unsigned a : rowAxes)
    if (plan.tile[a] > 1)
      rowShape.push_back(plan.tile[a]);
  for (unsigned a : plan.spatialAxes)
    if (plan.tile[a] > 1) {
      accAxes.push_back(a);
      accShape.push_back(plan.tile[a]);
      accThreads.push_back(plan.threads[a]);
    }
  for (unsigned a : plan.spatialAxes)
    if (plan.tile[a] == 1 && plan.threads[a] != 1)
      return err() << "axis '" << plan.axes[a].getName()
                   << "' has a tile of 1 but " << plan.threads[a]
                   << " threads";
  if (rowShape.size() != 1)
    return err() << "one row axis must have a tile larger than 1 (the rows "
                    "of a tile)";
  rows = rowShape[0];
  keys = plan.tile[kAxis];
  rowKeyThreads = rowThreads();
  if (rowKeyThreads.empty())
    return err() << "no split of the block's " << block
                 << " threads over a " << rows << " x " << keys
                 << " score tile (rows x keys) puts a power of two on the "
                    "keys and divides the rows";
  rowOnly = block;
  while (rows % rowOnly != 0)
    --rowOnly;
  mma = dyn_cast_if_present<MmaLayoutAttr>(layout);
  warpgroup = mma && mma.isWarpgroup();
  if (mma && accAxes.size() != 2)
    return err() << "mma needs the accumulator tile to be rows x values";
  rowAxis =
      *llvm::find_if(rowAxes, [&](unsigned a) { return plan.tile[a] > 1; });
  rowOnlyAxes = {rowAxis};
  rowKeyAxes = {rowAxis, kAxis};
  return success();
}

/// The fused computes (the consumer aside) and the buffers they write:
/// the kernel's own (S, M, the Ls, the accumulator), dead once fused.
SmallVector<const Fused *>
OnlineSoftmaxBuilder::fusedComputes(llvm::SmallPtrSetImpl<Value> &internal) {
  SmallVector<const Fused *> fused{&self, &max};
  for (const Fused &f : sums)
    fused.push_back(&f);
  if (scores)
    fused.push_back(&*scores);
  for (const Fused *f : fused)
    internal.insert(f->op.getOutputs().begin(), f->op.getOutputs().end());
  return fused;
}

/// A dynamic extent read off an operand the kernel keeps: the plan reads it
/// off the anchor's first operand that binds it, which may be a buffer of
/// the fused computes (the scores); an input of theirs (Q, K, V) binds it
/// too.
void OnlineSoftmaxBuilder::sourceDynamicExtents() {
  llvm::SmallPtrSet<Value, 8> internal;
  SmallVector<const Fused *> fused = fusedComputes(internal);
  for (unsigned a = 0; a < plan.axes.size(); ++a) {
    if (!ShapedType::isDynamic(plan.extents[a]) || !plan.extentSources[a] ||
        !internal.contains(plan.extentSources[a]->first))
      continue;
    for (const Fused *f : fused)
      for (auto [i, in] : llvm::enumerate(f->op.getInputs())) {
        auto type = cast<MemRefType>(in.getType());
        for (auto [r, e] : llvm::enumerate(f->op.getInputMap(i).getResults())) {
          auto dim = dyn_cast<AffineDimExpr>(e);
          if (dim && f->anchorAxis[dim.getPosition()] == static_cast<int>(a) &&
              type.isDynamicDim(r) && !internal.contains(in) &&
              internal.contains(plan.extentSources[a]->first))
            plan.extentSources[a] = std::make_pair(in, static_cast<unsigned>(r));
        }
      }
  }
}

/// The kernel runs only if the fused computes' operands agree with the
/// extents it steps through (as ext-compute-to-loops checks them; the
/// dynamic ones are read off Q, K, V or the output), and a dynamic extent
/// is a multiple of its stated multiple_of. The fused computes' own
/// buffers, dead once fused, are not read: an allocation's size is its
/// operand. Leaves the builder where the kernel goes (inside the guard, if
/// any).
void OnlineSoftmaxBuilder::guardDynamicSizes() {
  llvm::SmallPtrSet<Value, 8> internal;
  SmallVector<std::pair<ComputeOp, SmallVector<int>>> computes;
  for (const Fused *f : fusedComputes(internal))
    computes.push_back({f->op, f->anchorAxis});
  if (consumer)
    computes.push_back(
        {consumer->consumer, SmallVector<int>(consumer->anchorAxis.begin(),
                                              consumer->anchorAxis.end())});
  // Dimension r of v, or null where only reading the buffer would tell.
  auto sizeOf = [&](Value v, unsigned r) -> Value {
    if (!internal.contains(v))
      return memref::DimOp::create(rw, loc, v, r);
    if (auto alloc = v.getDefiningOp<memref::AllocOp>())
      return alloc.getDynamicSizes()[alloc.getType().getDynamicDimIndex(r)];
    return Value();
  };
  SmallVector<SizeCheck> checks;
  for (auto &[c, anchorAxis] : computes) {
    unsigned numInputs = c.getInputs().size();
    for (auto [o, v] : llvm::enumerate(c->getOperands())) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || type.hasStaticShape())
        continue;
      AffineMap map = o < numInputs ? c.getInputMap(o)
                                    : c.getOutputMap(o - numInputs);
      for (auto [r, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || !type.isDynamicDim(r))
          continue;
        int a = anchorAxis[dim.getPosition()];
        AxisAttr axis = c.getAxisList()[dim.getPosition()];
        if (a >= 0 && plan.extentSources[a] ==
                          std::make_pair(v, static_cast<unsigned>(r)))
          continue;
        Value size = sizeOf(v, r);
        if (!size)
          continue;
        Value extent = a >= 0 ? extentValue(rw, loc, plan, a)
                              : constIndex(rw, loc, axis.getExtent());
        checks.push_back(
            {arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, size,
                                   extent),
             "ext.compute " + quotedName(c) + ": dimension #" +
                 std::to_string(r) + " of " +
                 (o < numInputs ? "input #" + std::to_string(o)
                                : "output #" + std::to_string(o - numInputs)) +
                 " is not the extent of axis '" + axis.getName().str() +
                 "' that indexes it"});
      }
    }
  }
  for (auto [a, axis] : llvm::enumerate(plan.axes)) {
    if (!axis.isDynamic() || axis.getMultipleOf() <= 1)
      continue;
    Value rest = arith::RemUIOp::create(
        rw, loc, extentValue(rw, loc, plan, a),
        constIndex(rw, loc, axis.getMultipleOf()));
    checks.push_back(
        {arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, rest,
                               constIndex(rw, loc, 0)),
         "ext.compute: the extent of axis '" + axis.getName().str() +
             "' is not a multiple of " + std::to_string(axis.getMultipleOf()) +
             ", as its #ext.axis states"});
  }
  guardWithSizeChecks(rw, loc, checks);
}

/// The kernel, with no accumulator across work units: the whole tile is
/// done in its body. Leaves the builder at the start of the body.
FailureOr<KernelOp> OnlineSoftmaxBuilder::createKernel() {
  rw.setInsertionPoint(anchor);
  guardDynamicSizes();
  // A tile count or the key steps over a dynamic extent are computed here,
  // on the host, and the decomposition plans at launch.
  SmallVector<Value> dynamicTiles;
  int64_t numTiles = 1;
  for (auto [d, t] : llvm::enumerate(plan.tileCounts)) {
    if (ShapedType::isDynamic(t))
      dynamicTiles.push_back(tileCountValue(rw, loc, plan, plan.blockedAxes[d]));
    else
      numTiles *= t;
  }
  OpFoldResult iters = itersValue(rw, loc, plan);
  bool atLaunch = !dynamicTiles.empty() || ShapedType::isDynamic(plan.iters);
  // `auto` with the row statistics in shared memory, where no partial
  // state can be stored from registers, keeps each tile's keys together.
  TileDecompositionAttrInterface requested = schedule.getDecompositionOrDefault();
  if (isa<AutoAttr>(requested) && !scoresInRegisters)
    requested = DataParallelAttr::get(ctx);
  FailureOr<TileDecompositionAttrInterface> decomposition =
      atLaunch ? resolveLaunchDecomposition(
                     anchor, requested,
                     dynamicTiles.empty() ? numTiles : ShapedType::kDynamic,
                     plan.iters, keys, options)
               : resolveDecomposition(anchor, requested,
                                      numTiles, plan.iters, keys, options);
  if (failed(decomposition))
    return failure();
  kernelDecomposition = *decomposition;
  // A static problem that one step covers never splits.
  split = decomposition->splitsReduction() &&
          (atLaunch || plan.iters > 1);
  auto kernel = KernelOp::create(
      rw, loc, dynamicTiles, rw.getDenseI64ArrayAttr(plan.tileCounts),
      dyn_cast<Value>(iters), plan.iters, block, *decomposition,
      schedule.getRaster(), schedule.getSwizzle(),
      split ? CombinerKindAttr::get(ctx, CombinerKind::custom)
            : CombinerKindAttr(),
      ArrayAttr(), FloatAttr(), DenseI64ArrayAttr());
  unsigned numTileDims = plan.tileCounts.size();
  SmallVector<Type> argTypes(numTileDims + 2, rw.getIndexType());
  Block *body = rw.createBlock(&kernel.getBody(), {}, argTypes,
                               SmallVector<Location>(argTypes.size(), loc));
  SmallVector<Type> epiTypes(numTileDims, rw.getIndexType());
  Block *epilogue = rw.createBlock(&kernel.getEpilogue(), {}, epiTypes,
                                   SmallVector<Location>(numTileDims, loc));
  rw.setInsertionPointToStart(epilogue);
  KernelYieldOp::create(rw, loc, ValueRange());

  rw.setInsertionPointToStart(body);
  kernelBody = body;
  frame = buildFrame(rw, loc, plan, body->getArguments().take_front(numTileDims));
  f32 = rw.getF32Type();
  kOffset = constIndex(rw, loc, 0);
  return kernel;
}

/// The scores stay in the MMA fragment (read in place by the row
/// reductions and P) when each row of it sits in one warp and every fused
/// reduction is rows x keys over it.
void OnlineSoftmaxBuilder::placeScores() {
  auto rowsThenKeys = [&](const Fused &f) {
    SmallVector<unsigned> axes = keptAxes(f);
    return axes.size() == 2 &&
           f.anchorAxis[axes[0]] == static_cast<int>(rowAxis) &&
           f.anchorAxis[axes[1]] == static_cast<int>(kAxis);
  };
  scoresInRegisters = false;
  if (scores && mma) {
    SmallVector<int64_t> sShape;
    localMap(*scores, scores->op.getOutputMap(0), &sShape);
    Type sElem =
        cast<MemRefType>(scores->op.getOutputs()[0].getType()).getElementType();
    scoresInRegisters = mma.getWarps().size() == 2 && mma.getWarps()[1] == 1 &&
                        sShape.size() == 2 && sElem.isF32() &&
                        rowsThenKeys(max) && llvm::all_of(sums, rowsThenKeys);
  }
  // Row statistics: with the scores in registers, in registers too, each
  // lane holding its fragment rows' values (a slice of the MMA layout, as
  // FlashAttention keeps them): no shared memory and no barrier between
  // the row phases. Otherwise in shared memory, a row per thread.
  statThreads = {rowOnly};
  if (scoresInRegisters) {
    statThreads = {block};
    statLayout = SliceLayoutAttr::get(ctx, 1, mma);
  }
}

/// The row statistics (M, M_new, the max the step reads, the sums, the
/// accumulator's rescale) and the maps that read them.
void OnlineSoftmaxBuilder::allocRowStatistics() {
  mType = cast<MemRefType>(max.op.getOutputs()[0].getType()).getElementType();
  mBuf = allocRowBuffer("running max", mType);
  mNewBuf = allocRowBuffer("new max", mType);
  mEffBuf = allocRowBuffer("max as the step reads it", mType);
  for (const Fused &l : sums)
    sumBufs.push_back(allocRowBuffer(
        "running " + quotedName(l.op),
        cast<MemRefType>(l.op.getOutputs()[0].getType()).getElementType()));
  alphaAcc = allocRowBuffer("rescale of the accumulator", f32);

  // Anchor-axis maps of the row buffers and the accumulator.
  auto rowMapOver = [&](ArrayRef<unsigned> anchorAxes) {
    SmallVector<AffineExpr> r;
    for (auto [d, a] : llvm::enumerate(anchorAxes))
      if (llvm::is_contained(rowAxes, a) && plan.tile[a] > 1)
        r.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(anchorAxes.size(), 0, r, ctx);
  };
  rowId = rowMapOver(rowOnlyAxes);
  accId = AffineMap::getMultiDimIdentityMap(accAxes.size(), ctx);
  accRow = rowMapOver(accAxes);
}

/// Init: acc = 0, m = -inf, sums = 0.
void OnlineSoftmaxBuilder::emitInit() {
  accType = MemRefType::get(
      accShape,
      cast<MemRefType>(anchor.getOutputs()[0].getType()).getElementType());
  acc = allocFragment(accType, accThreads, layout);
  auto constBody = [&](TileComputeOp tc, ArrayRef<TypedAttr> values) {
    Block *b = rw.createBlock(&tc.getBody());
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    SmallVector<Value> vs;
    for (TypedAttr v : values)
      vs.push_back(arith::ConstantOp::create(ob, loc, v));
    YieldOp::create(ob, loc, vs);
  };
  auto tc = tileCompute(self, accAxes, accThreads, {}, {}, {{acc, accId}}, {},
                        false, layout);
  constBody(tc, {rw.getZeroAttr(accType.getElementType())});
  rw.setInsertionPointAfter(tc);
  SmallVector<TileOperand> outs{{mBuf, rowId}};
  SmallVector<TypedAttr> vals{negInfAttr(rw)};
  for (Value s : sumBufs) {
    outs.push_back({s, rowId});
    vals.push_back(rw.getZeroAttr(cast<MemRefType>(s.getType()).getElementType()));
  }
  auto init = tileCompute(self, rowOnlyAxes, statThreads, {}, {}, outs, {},
                          false, statLayout);
  constBody(init, vals);
  rw.setInsertionPointAfter(init);
}

/// The loop over key tiles, causal tiles skipped, with the prologue of
/// the staged copies before it and the prefetch of the step `stages - 1`
/// ahead at the top of its body, where it leaves the builder.
scf::ForOp OnlineSoftmaxBuilder::emitKeyLoop(Value kBegin, Value kEnd) {
  Value cKeys = constIndex(rw, loc, keys);
  Value loopEnd = kEnd;
  if (causal) {
    // Keys j <= i + c for rows i < offset + rows: tiles below
    // ceil((offset + rows + c) / keys).
    Value last = arith::AddIOp::create(
        rw, loc, frame.offsets[rowAxis], constIndex(rw, loc, rows + *causal));
    Value zero = constIndex(rw, loc, 0);
    last = arith::MaxSIOp::create(rw, loc, last, zero);
    Value tiles = arith::CeilDivUIOp::create(rw, loc, last, cKeys);
    loopEnd = arith::MinSIOp::create(rw, loc, kEnd, tiles);
  }
  if (keyLength)
    loopEnd = arith::MinSIOp::create(rw, loc, loopEnd, keyLengthSteps());
  int64_t stages = schedule.getStages();
  // The prologue: the copies of the first N - 1 steps, a group each.
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value step = arith::AddIOp::create(rw, loc, kBegin, constIndex(rw, loc, s));
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, step, loopEnd);
    Value offset = arith::MulIOp::create(rw, loc, step, cKeys);
    Value which = constIndex(rw, loc, s);
    auto commit = CopyCommitOp::create(rw, loc);
    prefetches.push_back({commit, offset, active, which});
  }
  auto loop = scf::ForOp::create(rw, loc, kBegin, loopEnd, constIndex(rw, loc, 1));
  keyLoop = loop;
  rw.setInsertionPoint(loop.getBody()->getTerminator());
  if (stages > 1) {
    // Wait for this step's group (all but the N - 2 newest), then copy the
    // step N - 1 ahead into the buffer the previous step freed.
    Value rel = arith::SubIOp::create(rw, loc, loop.getInductionVar(), kBegin);
    Value cStages = constIndex(rw, loc, stages);
    stage = arith::RemUIOp::create(rw, loc, rel, cStages);
    CopyWaitOp::create(rw, loc, stages - 2 + (options.weakenAsyncWait ? 1 : 0));
    Value ahead = arith::AddIOp::create(rw, loc, loop.getInductionVar(),
                                        constIndex(rw, loc, stages - 1));
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, ahead, loopEnd);
    Value offset = arith::MulIOp::create(rw, loc, ahead, cKeys);
    Value aheadStage = arith::RemUIOp::create(
        rw, loc,
        arith::AddIOp::create(rw, loc, rel, constIndex(rw, loc, stages - 1)),
        cStages);
    auto commit = CopyCommitOp::create(rw, loc);
    prefetches.push_back({commit, offset, active, aheadStage});
  }
  kOffset = arith::MulIOp::create(rw, loc, loop.getInductionVar(), cKeys);
  // The last step's keys past the extent are masked (a dynamic extent
  // always, unless its stated multiple_of is one of the step).
  kValid = tileDividesExtent(plan, kAxis)
               ? cKeys
               : arith::MinSIOp::create(
                     rw, loc, cKeys,
                     arith::SubIOp::create(rw, loc,
                                           extentValue(rw, loc, plan, kAxis),
                                           kOffset))
                     .getResult();
  rowsValid = frame.bounds[rowAxis];
  return loop;
}

/// M or a sum `f`, from its row buffer `buf` to its output, if anything
/// besides the `fused` computes reads it.
LogicalResult
OnlineSoftmaxBuilder::storeRowStatistic(const Fused &f, Value buf,
                                        ArrayRef<Operation *> fused) {
  Value out = f.op.getOutputs()[0];
  if (!isReadElsewhere(out, fused))
    return success();
  // The output's window at the tile, written from the rows' buffer.
  SmallVector<unsigned> axes;
  for (unsigned a : keptAxes(f))
    if (f.op.getAxisList()[a].isSpatial())
      axes.push_back(a);
  Window w = window(f, out, f.op.getOutputMap(0));
  Value tile = tileView(rw, loc, w.view, w.origins, w.shape);
  AffineMap id = AffineMap::getMultiDimIdentityMap(w.shape.size(), ctx);
  auto tc = tileCompute(f, axes, statThreads, {rowsValid}, {{buf, id}},
                        {{tile, id}}, {}, false, statLayout);
  Type t = cast<MemRefType>(buf.getType()).getElementType();
  Block *b = rw.createBlock(&tc.getBody(), {}, {t}, {loc});
  OpBuilder ob = OpBuilder::atBlockBegin(b);
  YieldOp::create(ob, loc, b->getArgument(0));
  rw.setInsertionPointAfter(tc);
  return success();
}

/// The accumulator's tile of `f`'s output `out` (through `outMap`): the
/// value `yielded` of `f`'s body over `ins`, or the accumulator itself.
LogicalResult OnlineSoftmaxBuilder::storeTile(const Fused &f, Value out,
                                              AffineMap outMap,
                                              ArrayRef<TileOperand> ins,
                                              ArrayRef<int> args,
                                              Value yielded) {
  SmallVector<Value> accBounds;
  for (unsigned a : accAxes)
    accBounds.push_back(frame.bounds[a]);
  Window w = window(f, out, outMap);
  Value tile = tileView(rw, loc, w.view, w.origins, w.shape);
  SmallVector<unsigned> axes;
  for (unsigned a : keptAxes(f))
    if (f.op.getAxisList()[a].isSpatial())
      axes.push_back(a);
  auto tc = tileCompute(f, axes, accThreads, accBounds, ins,
                        {{tile, localMap(f, outMap, nullptr, axes)}}, {},
                        false, layout);
  if (yielded) {
    fillBody(f, tc, args, {yielded});
  } else {
    Block *b =
        rw.createBlock(&tc.getBody(), {}, {accType.getElementType()}, {loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    YieldOp::create(ob, loc, b->getArgument(0));
  }
  rw.setInsertionPointAfter(tc);
  return success();
}

/// The consumer fused by reverse_compute_at: its body over the accumulator
/// and its other inputs (the kernel's buffers, or views of global memory).
LogicalResult
OnlineSoftmaxBuilder::storeConsumer(const FusedConsumer &fc) {
  Fused d{fc.consumer, {}};
  for (unsigned a : fc.anchorAxis)
    d.anchorAxis.push_back(a);
  SmallVector<int> args;
  Value yielded = d.op.getBody().front().getTerminator()->getOperand(0);
  SmallVector<TileOperand> ins;
  Block &src = d.op.getBody().front();
  args.assign(src.getNumArguments(), -1);
  for (unsigned i = 0; i < src.getNumArguments(); ++i) {
    args[i] = ins.size();
    AffineMap map = d.op.getInputMap(i);
    if (i == fc.input) {
      ins.push_back({acc, localMap(d, map)});
      continue;
    }
    if (std::optional<TileOperand> kb =
            kernelBuffer(d, d.op.getInputs()[i], map)) {
      ins.push_back(*kb);
      continue;
    }
    FailureOr<TileOperand> t = inputTile(d, i, /*copy=*/false);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  return storeTile(d, d.op.getOutputs()[0], d.op.getOutputMap(0), ins, args,
                   yielded);
}

/// After the keys: M and the sums to their outputs where they are read,
/// then the accumulator's store or the consumer fused by
/// reverse_compute_at (`consumer`).
LogicalResult OnlineSoftmaxBuilder::emitEpilogue() {
  SmallVector<Operation *> fusedOps{anchor, max.op};
  for (const Fused &f : sums)
    fusedOps.push_back(f.op);
  if (consumer)
    fusedOps.push_back(consumer->consumer);
  if (failed(storeRowStatistic(max, mBuf, fusedOps)))
    return failure();
  for (auto [f, buf] : llvm::zip(sums, sumBufs))
    if (failed(storeRowStatistic(f, buf, fusedOps)))
      return failure();
  // Later reads of M (the epilogue consumer's) see the final max.
  mEffBuf = mBuf;

  bool storeAnchor = !consumer || consumer->keepAnchorOutput;
  if (storeAnchor &&
      failed(storeTile(self, anchor.getOutputs()[0], anchor.getOutputMap(0),
                       {{acc, accId}}, {}, Value())))
    return failure();
  if (consumer && failed(storeConsumer(*consumer)))
    return failure();
  return success();
}

FailureOr<KernelOp> OnlineSoftmaxBuilder::build() {
  if (failed(resolve()) || failed(planTile()))
    return failure();
  FailureOr<std::optional<FusedConsumer>> fusedOr =
      resolveReverseComputeAt(anchor, schedule, plan);
  if (failed(fusedOr))
    return failure();
  consumer = *fusedOr;
  sourceDynamicExtents();
  placeScores();
  FailureOr<KernelOp> kernel = createKernel();
  if (failed(kernel))
    return failure();
  if (split && failed(checkSplit()))
    return failure();
  allocRowStatistics();
  emitInit();
  unsigned numTileDims = plan.tileCounts.size();
  scf::ForOp loop = emitKeyLoop(kernelBody->getArgument(numTileDims),
                                kernelBody->getArgument(numTileDims + 1));
  if (failed(emitKeyStep()))
    return failure();

  rw.setInsertionPointAfter(loop);
  if (schedule.getStages() > 1)
    CopyWaitOp::create(rw, loc, 0);
  if (split) {
    if (failed(emitSplitEnd(*kernel)))
      return failure();
  } else {
    if (failed(emitEpilogue()))
      return failure();
    KernelYieldOp::create(rw, loc, ValueRange());
  }

  // The fused computes are now the kernel's.
  if (consumer)
    rw.eraseOp(consumer->consumer);
  rw.eraseOp(anchor);
  for (Fused &f : llvm::reverse(sums))
    rw.eraseOp(f.op);
  rw.eraseOp(max.op);
  if (scores && !isReadElsewhere(scores->op.getOutputs()[0], {scores->op}))
    rw.eraseOp(scores->op);
  return kernel;
}

FailureOr<KernelOp> tiling::applyOnlineSoftmax(
    RewriterBase &rw, ComputeOp op, ScheduleAttr schedule, TilingPlan &plan,
    FragmentLayoutAttrInterface layout, ArrayRef<StringAttr> inlined,
    const ApplyScheduleOptions &options) {
  return OnlineSoftmaxBuilder(rw, op, schedule, plan, layout, inlined, options)
      .build();
}
