//===- OnlineSoftmaxOperands.cpp - tile operands of the online softmax ----===//
//
// How the fused computes' operands reach a tile compute inside the
// online-softmax kernel: the kernel's own buffers (the row statistics, the
// scores), shared copies of the global windows (K and V staged `stages - 1`
// key tiles ahead, the others copied once before the key loop), views of
// global memory, and the tile computes whose bodies are cloned from the
// fused computes' bodies. Kept apart from the phases so that each phase
// reads as what it computes.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"
#include "KLoop.h"
#include "ScheduleResolution.h"

#include "ext/Dialect/Ext/IR/IndirectReads.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/StageSelect.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <functional>

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

Value ext::tiling::online::rankReducedView(RewriterBase &rw, Location loc, Value memref,
                             ArrayRef<int64_t> reducedShape,
                             ArrayRef<OpFoldResult> offs,
                             ArrayRef<OpFoldResult> sizes,
                             ArrayRef<OpFoldResult> strides) {
  auto type = cast<MemRefType>(memref.getType());
  if (reducedShape.size() == static_cast<size_t>(type.getRank()))
    return memref;
  return memref::SubViewOp::create(
      rw, loc,
      cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
          reducedShape, type, offs, sizes, strides)),
      memref, offs, sizes, strides);
}

bool OnlineSoftmaxBuilder::kept(const Fused &f, unsigned axis) const {
  int a = f.anchorAxis[axis];
  if (a < 0)
    return true;
  return static_cast<unsigned>(a) == kAxis || plan.tile[a] > 1;
}

SmallVector<unsigned> OnlineSoftmaxBuilder::keptAxes(const Fused &f) const {
  SmallVector<unsigned> out;
  for (unsigned a = 0; a < f.anchorAxis.size(); ++a)
    if (kept(f, a))
      out.push_back(a);
  return out;
}

Value OnlineSoftmaxBuilder::origin(const Fused &f, AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return constIndex(rw, loc, c.getValue());
  unsigned pos = cast<AffineDimExpr>(e).getPosition();
  int a = f.anchorAxis[pos];
  if (a < 0)
    return constIndex(rw, loc, 0);
  if (static_cast<unsigned>(a) == kAxis)
    return kOffset;
  return frame.offsets[a];
}

AffineMap OnlineSoftmaxBuilder::localMap(const Fused &f, AffineMap map,
                                         SmallVectorImpl<int64_t> *shape,
                                         ArrayRef<unsigned> over) {
  SmallVector<unsigned> axes =
      over.empty() ? keptAxes(f) : SmallVector<unsigned>(over);
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    // A page's row `j mod P` is the key within the step (whole pages per
    // step: checkRead).
    if (!d && map.getNumSymbols() && readKind(f, e) == ReadKind::pageRow)
      d = cast<AffineDimExpr>(cast<AffineBinaryOpExpr>(e).getLHS());
    // A shifted read is at its axis within the window.
    if (!d && readKind(f, e) == ReadKind::shifted)
      d = shiftedRead(f, e)->first;
    if (!d || !kept(f, d.getPosition()))
      continue;
    unsigned local = llvm::find(axes, d.getPosition()) - axes.begin();
    results.push_back(getAffineDimExpr(local, ctx));
    if (shape) {
      int a = f.anchorAxis[d.getPosition()];
      shape->push_back(a < 0 ? f.op.getAxisList()[d.getPosition()].getExtent()
                             : plan.tile[a]);
    }
  }
  return AffineMap::get(axes.size(), 0, results, ctx);
}

OnlineSoftmaxBuilder::Window
OnlineSoftmaxBuilder::window(const Fused &f, Value memref, AffineMap map) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> offs, sizes, strides;
  SmallVector<int64_t> reducedShape;
  Window w;
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    bool keep = dim && kept(f, dim.getPosition());
    Value o = origin(f, e);
    strides.push_back(rw.getIndexAttr(1));
    if (keep) {
      offs.push_back(rw.getIndexAttr(0));
      // A dynamic dimension (a symbolic length) kept whole: its size.
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(memref::DimOp::create(rw, loc, memref, d)
                                             .getResult())
                          : OpFoldResult(rw.getIndexAttr(type.getDimSize(d))));
      w.origins.push_back(o);
      reducedShape.push_back(type.getDimSize(d));
      int a = f.anchorAxis[dim.getPosition()];
      w.shape.push_back(a < 0
                            ? f.op.getAxisList()[dim.getPosition()].getExtent()
                            : plan.tile[a]);
    } else {
      offs.push_back(o);
      sizes.push_back(rw.getIndexAttr(1));
    }
  }
  w.view = rankReducedView(rw, loc, memref, reducedShape, offs, sizes,
                           strides);
  return w;
}

FailureOr<TileOperand> OnlineSoftmaxBuilder::inputTile(
    const Fused &f, unsigned i, bool copy, ArrayRef<unsigned> over) {
  Value input = f.op.getInputs()[i];
  AffineMap map = f.op.getInputMap(i);
  auto type = cast<MemRefType>(input.getType());
  // One copy per window: before the key loop when it does not move with
  // the keys.
  SmallVector<int64_t> key;
  bool moves = false;
  if (failed(checkRead(f, i)))
    return failure();
  for (AffineExpr e : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      key.push_back(-100 - c.getValue());
      continue;
    }
    if (!isa<AffineDimExpr>(e)) {
      // A page and its row move with the keys; the rest is fixed per tile.
      ReadKind kind = readKind(f, e);
      moves |= kind == ReadKind::page || kind == ReadKind::pageRow;
      if (kind == ReadKind::shifted) {
        // Its axis, and which shift: the heads of one packed tensor are
        // different windows.
        int a = f.anchorAxis[shiftedRead(f, e)->first.getPosition()];
        moves |= a == static_cast<int>(kAxis);
        key.push_back(a);
        key.push_back(-3000 - static_cast<int64_t>(reinterpret_cast<intptr_t>(
                                  e.getAsOpaquePointer())));
        continue;
      }
      key.push_back(kind == ReadKind::fixed ? -1000 : kAxis);
      continue;
    }
    int a = f.anchorAxis[cast<AffineDimExpr>(e).getPosition()];
    moves |= a == static_cast<int>(kAxis);
    key.push_back(a);
  }
  AffineMap local = localMap(f, map, nullptr, over);
  auto cacheKey = std::make_pair(input.getAsOpaquePointer(), key);
  if (copy)
    if (auto it = copies.find(cacheKey); it != copies.end())
      return TileOperand{it->second, local};
  OpBuilder::InsertionGuard guard(rw);
  if (copy && !moves && keyLoop)
    rw.setInsertionPoint(keyLoop);
  if (copy && moves && !prefetches.empty())
    return stagedTile(f, i, local, cacheKey);

  Window w = inputWindow(f, i);
  if (!copy)
    return TileOperand{tileView(rw, loc, w.view, w.origins, w.shape), local};
  Value buf = allocShared("shared tile of " + quotedName(f.op) + " input " +
                              Twine(i),
                          w.shape, type.getElementType(),
                          operandSwizzle(w.shape, type.getElementType()));
  copyWindow(f, i, w, buf,
             phaseLoc(loc, "copy of " + quotedName(f.op) + " input " +
                               Twine(i) + " into shared memory"),
             Value(), CopyStagingAttr());
  copies[cacheKey] = buf;
  return TileOperand{buf, local};
}

TileOperand OnlineSoftmaxBuilder::stagedTile(const Fused &f, unsigned i,
                                             AffineMap local,
                                             CopyCacheKey cacheKey) {
  Value input = f.op.getInputs()[i];
  auto type = cast<MemRefType>(input.getType());
  int64_t stages = schedule.getStages();
  SmallVector<Value> bufs;
  Value step = kOffset;
  CopyStagingAttr staging = CopyStagingAttr::get(
      ctx, options.asyncCopies && schedule.getAsync() ? CopyStaging::async
                                                      : CopyStaging::registers);
  for (const Prefetch &p : prefetches) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(p.commit);
    kOffset = p.offset;
    pageActive = p.active;
    Window w = inputWindow(f, i);
    if (bufs.empty())
      for (int64_t b = 0; b < stages; ++b)
        bufs.push_back(allocShared(
            "shared tile of " + quotedName(f.op) + " input " + Twine(i) +
                ", stage " + Twine(b),
            w.shape, type.getElementType(),
            operandSwizzle(w.shape, type.getElementType())));
    copyWindow(f, i, w, selectStage(rw, loc, bufs, p.stage),
               phaseLoc(loc, "staged copy of " + quotedName(f.op) +
                                 " input " + Twine(i) + " into shared memory"),
               p.active, staging);
    pageActive = Value();
  }
  kOffset = step;
  // This step's buffer, picked at the top of the loop's body.
  Value cur;
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfterValue(stage);
    cur = selectStage(rw, loc, bufs, stage);
  }
  copies[cacheKey] = cur;
  return TileOperand{cur, local};
}

std::optional<TileOperand>
OnlineSoftmaxBuilder::kernelBuffer(const Fused &f, Value v, AffineMap map,
                                   ArrayRef<unsigned> over) {
  Value buf;
  if (v == max.op.getOutputs()[0])
    buf = mEffBuf;
  else if (scores && v == scores->op.getOutputs()[0])
    buf = sFrag ? sFrag : sBuf;
  else
    for (auto [l, sb] : llvm::zip(sums, sumBufs))
      if (v == l.op.getOutputs()[0])
        buf = sb;
  if (!buf)
    return std::nullopt;
  return TileOperand{buf, localMap(f, map, nullptr, over)};
}

FailureOr<SmallVector<TileOperand>>
OnlineSoftmaxBuilder::operands(const Fused &f, SmallVectorImpl<int> &args,
                               ArrayRef<Value> needed,
                               ArrayRef<unsigned> over) {
  SmallVector<TileOperand> ins;
  Block &src = f.op.getBody().front();
  args.assign(src.getNumArguments(), -1);
  // Only the arguments the needed values read.
  llvm::SmallDenseSet<unsigned> used;
  SmallVector<Value> work(needed.begin(), needed.end());
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      used.insert(arg.getArgNumber());
      continue;
    }
    if (seen.insert(v.getDefiningOp()).second)
      llvm::append_range(work, dependencies(v.getDefiningOp()));
  }
  for (unsigned i = 0; i < src.getNumArguments(); ++i) {
    if (!used.contains(i))
      continue;
    args[i] = ins.size();
    if (std::optional<TileOperand> kb =
            kernelBuffer(f, f.op.getInputs()[i], f.op.getInputMap(i), over)) {
      ins.push_back(*kb);
      continue;
    }
    FailureOr<TileOperand> t = inputTile(f, i, /*copy=*/true, over);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  return ins;
}

SmallVector<int64_t> OnlineSoftmaxBuilder::rowThreads() const {
  // As few threads on the keys as the rows allow: each thread walks its
  // keys in registers, and the combine across threads is short.
  for (int64_t t = 1; t <= std::min<int64_t>(32, keys); t *= 2)
    if (keys % t == 0 && block % t == 0 && rows % (block / t) == 0)
      return {block / t, t};
  return {};
}

bool OnlineSoftmaxBuilder::valueAfterScores() {
  const std::optional<ChipInfo> &chip = options.device.chip;
  if (!prefetches.empty() || !scores || !chip ||
      !chip->maxSharedBytesPerBlock ||
      scores->op.getCombiner() != CombinerKind::sum)
    return false;
  // Tile sizes from the plan, rows padded by at most 16 bytes.
  auto bytes = [](int64_t r, int64_t c, Type t) {
    return r * (c * static_cast<int64_t>(t.getIntOrFloatBitWidth() / 8) + 16);
  };
  int64_t rows = 1, keys = plan.tile[kAxis], depth = 1, values = 1;
  for (unsigned a : rowAxes)
    rows *= plan.tile[a];
  for (unsigned a : valueAxes)
    values *= plan.tile[a];
  for (auto [a, axis] : llvm::enumerate(scores->op.getAxisList()))
    if (scores->anchorAxis[a] < 0)
      depth *= axis.getExtent();
  // The scores' operands: the one read at the keys is K's tile (keys x
  // depth), the others Q's (rows x depth).
  int64_t qk = 0;
  for (auto [i, in] : llvm::enumerate(scores->op.getInputs())) {
    Type t = cast<MemRefType>(in.getType()).getElementType();
    bool atKeys =
        llvm::any_of(scores->op.getInputMap(i).getResults(), [&](AffineExpr e) {
          auto d = dyn_cast<AffineDimExpr>(e);
          return d &&
                 scores->anchorAxis[d.getPosition()] == static_cast<int>(kAxis);
        });
    if (t.isIntOrFloat())
      qk += bytes(atKeys ? keys : rows, depth, t);
  }
  Type wElem =
      cast<MemRefType>(anchor.getInputs()[wInput].getType()).getElementType();
  Type pElem =
      isa_and_nonnull<MmaLayoutAttr>(layout) ? wElem : pValue.getType();
  int64_t total = qk + bytes(keys, values, wElem) + bytes(rows, keys, pElem);
  return total > static_cast<int64_t>(chip->maxSharedBytesPerBlock);
}

Value OnlineSoftmaxBuilder::cloneSlice(OpBuilder &b, const Fused &f,
                                       ArrayRef<unsigned> axes, Value v,
                                       IRMapping &map) {
  if (Value m = map.lookupOrNull(v))
    return m;
  Operation *def = v.getDefiningOp();
  assert(def && "block arguments are mapped up front");
  if (auto idx = dyn_cast<IndexOp>(def)) {
    unsigned pos = *f.op.getAxisPosition(idx.getAxis());
    int a = f.anchorAxis[pos];
    Value offset = a < 0 ? Value()
                   : static_cast<unsigned>(a) == kAxis ? kOffset
                                                       : frame.offsets[a];
    Value result;
    if (!kept(f, pos)) {
      result = offset;
    } else {
      result = IndexOp::create(b, idx.getLoc(), b.getIndexType(), idx.getAxis());
      if (offset)
        result = arith::AddIOp::create(b, idx.getLoc(), result, offset);
    }
    map.map(v, result);
    return result;
  }
  for (Value operand : dependencies(def))
    cloneSlice(b, f, axes, operand, map);
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

bool OnlineSoftmaxBuilder::sameValue(const Fused &fa, ArrayRef<int> argsA,
                                     ArrayRef<TileOperand> insA, Value a,
                                     const Fused &fb, ArrayRef<int> argsB,
                                     ArrayRef<TileOperand> insB, Value b) {
  std::function<LogicalResult(Value, Value)> same =
      [&](Value x, Value y) -> LogicalResult {
    if (x.getType() != y.getType())
      return failure();
    auto ax = dyn_cast<BlockArgument>(x), by = dyn_cast<BlockArgument>(y);
    if (ax || by) {
      if (!ax || !by || argsA[ax.getArgNumber()] < 0 ||
          argsB[by.getArgNumber()] < 0)
        return failure();
      const TileOperand &tx = insA[argsA[ax.getArgNumber()]];
      const TileOperand &ty = insB[argsB[by.getArgNumber()]];
      return success(tx.buffer == ty.buffer && tx.map == ty.map);
    }
    Operation *ox = x.getDefiningOp(), *oy = y.getDefiningOp();
    if (cast<OpResult>(x).getResultNumber() !=
            cast<OpResult>(y).getResultNumber() ||
        ox->getNumRegions() || oy->getNumRegions())
      return failure();
    if (auto ix = dyn_cast<IndexOp>(ox)) {
      auto iy = dyn_cast<IndexOp>(oy);
      return success(iy &&
                     fa.anchorAxis[*fa.op.getAxisPosition(ix.getAxis())] ==
                         fb.anchorAxis[*fb.op.getAxisPosition(iy.getAxis())]);
    }
    return success(OperationEquivalence::isEquivalentTo(
        ox, oy, same, nullptr, OperationEquivalence::IgnoreLocations));
  };
  return succeeded(same(a, b));
}

void OnlineSoftmaxBuilder::fillBody(
    const Fused &f, TileComputeOp tc, ArrayRef<int> args,
    ArrayRef<Value> results,
    function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>)> finish) {
  Block &src = f.op.getBody().front();
  SmallVector<Type> types;
  for (Value in : tc.getInputs())
    types.push_back(cast<MemRefType>(in.getType()).getElementType());
  Block *dst = rw.createBlock(&tc.getBody(), {}, types,
                              SmallVector<Location>(types.size(), loc));
  OpBuilder b = OpBuilder::atBlockBegin(dst);
  IRMapping map;
  for (auto [k, a] : llvm::enumerate(args))
    if (a >= 0)
      map.map(src.getArgument(k), dst->getArgument(a));
  SmallVector<unsigned> axes = keptAxes(f);
  SmallVector<Value> values;
  for (Value r : results)
    values.push_back(cloneSlice(b, f, axes, r, map));
  if (finish)
    values = finish(b, values);
  YieldOp::create(b, loc, values);
}

TileComputeOp OnlineSoftmaxBuilder::tileCompute(
    const Fused &f, ArrayRef<unsigned> axes, ArrayRef<int64_t> threads,
    ValueRange bounds, ArrayRef<TileOperand> ins, ArrayRef<TileOperand> outs,
    CombinerKindAttr combiner, bool accumulate,
    FragmentLayoutAttrInterface tcLayout, bool allSpatial) {
  SmallVector<Attribute> axisAttrs;
  for (unsigned a : axes) {
    AxisAttr axis = f.op.getAxisList()[a];
    int aa = f.anchorAxis[a];
    axisAttrs.push_back(AxisAttr::get(ctx, axis.getName(),
                                      allSpatial ? AxisKind::spatial
                                                 : axis.getKind(),
                                      aa < 0 ? axis.getExtent()
                                             : plan.tile[aa]));
  }
  SmallVector<Value> inVals, outVals;
  SmallVector<AffineMap> maps;
  for (const TileOperand &t : ins) {
    inVals.push_back(t.buffer);
    maps.push_back(t.map);
  }
  for (const TileOperand &t : outs) {
    outVals.push_back(t.buffer);
    maps.push_back(t.map);
  }
  return TileComputeOp::create(
      rw, loc, rw.getArrayAttr(axisAttrs), rw.getDenseI64ArrayAttr(threads),
      bounds, inVals, outVals, rw.getAffineMapArrayAttr(maps), combiner,
      ArrayAttr(), accumulate ? rw.getUnitAttr() : UnitAttr(), tcLayout,
      IntegerAttr());
}

Value OnlineSoftmaxBuilder::allocShared(const Twine &what,
                                        ArrayRef<int64_t> shape, Type elem,
                                        SwizzleAttr swizzle) {
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(kernelBody);
  SmallVector<StorageAlignAttr> aligns;
  int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
  // (A row of exactly 16 bytes stays unpadded: the rule cannot add one
  // whole row's bytes, and its rows of 4 banks conflict little.)
  if (!swizzle && shape.size() == 2 && shape.back() > 1 && bytes <= 16 &&
      shape.back() * bytes > 16 && (shape.back() * bytes) % 16 == 0)
    aligns.push_back(StorageAlignAttr::get(ctx, 0, shape.back(), 16 / bytes));
  ArrayAttr alignAttr =
      aligns.empty() ? ArrayAttr()
                     : rw.getArrayAttr(SmallVector<Attribute>(aligns.begin(),
                                                              aligns.end()));
  return AllocSharedOp::create(rw, phaseLoc(loc, what),
                               sharedTileType(shape, elem, aligns), alignAttr,
                               swizzle);
}

SwizzleAttr OnlineSoftmaxBuilder::operandSwizzle(ArrayRef<int64_t> shape,
                                                 Type elem) const {
  if (!warpgroup || shape.size() != 2)
    return {};
  return wgmmaOperandSwizzle(ctx, shape.back(), elem);
}

Value OnlineSoftmaxBuilder::allocFragment(
    MemRefType type, ArrayRef<int64_t> threads,
    FragmentLayoutAttrInterface fragLayout) {
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(kernelBody);
  return AllocFragmentOp::create(rw, loc, type,
                                 rw.getDenseI64ArrayAttr(threads), fragLayout);
}

Value OnlineSoftmaxBuilder::allocRowBuffer(const Twine &what, Type elem) {
  SmallVector<int64_t> rowShape{rows};
  if (statLayout)
    return allocFragment(MemRefType::get(rowShape, elem), statThreads,
                         statLayout);
  return allocShared(what, rowShape, elem);
}
