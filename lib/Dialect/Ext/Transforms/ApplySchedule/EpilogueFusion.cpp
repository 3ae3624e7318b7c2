//===- EpilogueFusion.cpp - reverse_compute_at in ext-apply-schedule ------===//
//
// A schedule's `reverse_compute_at = [#ext.at<"D", "j">]` fuses D, an
// element-wise consumer of the scheduled compute's output, into the kernel's
// epilogue: D's body runs on each finished output tile in registers (the
// accumulator fragment, D's other inputs read at the tile's points) and its
// value is stored to D's output. This file checks that the fusion keeps the
// program's meaning and builds that store.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"
#include "TileIR.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

/// The ops after `anchor` in its block that the consumer's operands need
/// (transitively), in block order; each must be an allocation or free of
/// memory effects, so that moving it above the anchor changes nothing else.
static LogicalResult
collectHoisted(ComputeOp anchor, ComputeOp consumer,
               SmallVectorImpl<Operation *> &hoisted,
               function_ref<InFlightDiagnostic()> err) {
  llvm::SetVector<Operation *> found;
  SmallVector<Value> worklist(consumer->getOperands());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != anchor->getBlock() ||
        def->isBeforeInBlock(anchor) || found.contains(def))
      continue;
    bool movable = def->getNumRegions() == 0 &&
                   (isa<memref::AllocOp, memref::AllocaOp>(def) ||
                    isMemoryEffectFree(def));
    if (!movable)
      return err() << "'" << def->getName()
                   << "' between the two defines an operand of the consumer, "
                      "and the fused kernel runs where "
                   << quotedName(anchor) << " is";
    found.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  hoisted.assign(found.begin(), found.end());
  llvm::sort(hoisted, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return success();
}

FailureOr<std::optional<FusedConsumer>>
tiling::resolveReverseComputeAt(ComputeOp op, ScheduleAttr schedule,
                                const TilingPlan &plan) {
  ArrayRef<AttachAttr> attached = schedule.getReverseComputeAt();
  if (attached.empty())
    return std::optional<FusedConsumer>();
  AttachAttr at = attached.front();
  StringRef name = at.getCompute().getValue();
  auto err = [&]() {
    return op.emitOpError() << "schedule: reverse_compute_at '" << name
                            << "': ";
  };

  FailureOr<ComputeOp> found = findNamedCompute(op, name, err);
  if (failed(found))
    return failure();
  ComputeOp consumer = *found;
  if (!op->isBeforeInBlock(consumer))
    return err() << "it comes before " << quotedName(op)
                 << ", so it cannot consume its output";

  // Every spatial axis's tile loop is the output tile's (the blocked ones
  // index the grid; the others are covered by one tile).
  std::optional<unsigned> axis = op.getAxisPosition(at.getAxis().getValue());
  if (!axis || !plan.axes[*axis].isSpatial()) {
    InFlightDiagnostic d = err();
    d << "'" << at.getAxis().getValue() << "' is not a spatial axis of "
      << quotedName(op) << "; a consumer runs once per finished output tile, at "
      << "a spatial axis (";
    llvm::interleaveComma(plan.spatialAxes, d, [&](unsigned a) {
      d << "'" << plan.axes[a].getName() << "'";
    });
    return d << ")";
  }
  if (consumer.getScheduleAttr())
    return err() << "it has its own schedule; a fused consumer runs in "
                 << quotedName(op) << "'s kernel";
  for (AxisAttr a : consumer.getAxisList())
    if (a.isReduce())
      return err() << "it is a reduction (axis '" << a.getName()
                   << "'); reverse_compute_at fuses an element-wise consumer";
  if (!plan.useFragments)
    return err() << quotedName(op)
                 << " has no accumulator in registers to apply it to (a "
                    "compute without reduce axes, or a reduction on threads)";
  if (op.getOutputs().size() != 1 || consumer.getOutputs().size() != 1)
    return err() << "fuses a consumer with one output into a compute with "
                    "one output";
  if (plan.outputCache[0])
    return err() << "the output of " << quotedName(op)
                 << " is staged through shared memory (its cache); a fused "
                    "consumer is applied in registers, without staging";

  Value anchorOut = op.getOutputs()[0];
  FusedConsumer fused;
  fused.consumer = consumer;
  std::optional<unsigned> reads;
  for (auto [i, in] : llvm::enumerate(consumer.getInputs())) {
    if (in != anchorOut)
      continue;
    if (reads)
      return err() << "it reads the output of " << quotedName(op) << " twice";
    reads = i;
  }
  if (!reads)
    return err() << "it does not read the output of " << quotedName(op);
  fused.input = *reads;
  for (Value out : consumer.getOutputs())
    if (llvm::is_contained(op.getInputs(), out) || out == anchorOut)
      return err() << "it writes a memref that " << quotedName(op) << " uses";

  // The consumer reads the anchor's output where it writes its own, each
  // dimension a plain axis: its point is the anchor's.
  AffineMap readMap = consumer.getInputMap(fused.input);
  AffineMap writeMap = consumer.getOutputMap(0);
  AffineMap anchorMap = op.getOutputMap(0);
  if (readMap != writeMap)
    return err() << "it reads the output of " << quotedName(op) << " at "
                 << AffineMapAttr::get(readMap) << " but writes at "
                 << AffineMapAttr::get(writeMap)
                 << "; a fused consumer is element-wise";
  SmallVector<AxisAttr> consumerAxes = consumer.getAxisList();
  fused.anchorAxis.assign(consumerAxes.size(), 0);
  for (auto [r, e] : llvm::enumerate(readMap.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    unsigned a = cast<AffineDimExpr>(anchorMap.getResult(r)).getPosition();
    fused.anchorAxis[d] = a;
    int64_t mine = consumerAxes[d].getExtent(), theirs = plan.extents[a];
    if (mine != theirs)
      return err() << "its axis '" << consumerAxes[d].getName()
                   << "' has extent "
                   << (ShapedType::isDynamic(mine) ? "?" : Twine(mine).str())
                   << " where " << quotedName(op) << "'s axis '"
                   << plan.axes[a].getName() << "' has "
                   << (ShapedType::isDynamic(theirs) ? "?"
                                                     : Twine(theirs).str());
  }
  // Its other inputs are read at the tile's points: plain axes or
  // constants, which a view of the tile's window covers.
  for (auto [i, map] : llvm::enumerate(consumer.getMaps())) {
    if (i == fused.input || i >= consumer.getInputs().size())
      continue;
    for (AffineExpr e : map.getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return err() << "it reads input #" << i << " at "
                     << AffineMapAttr::get(map)
                     << "; a fused consumer reads its other inputs at "
                        "plain axis indices or constants";
  }

  // Nothing between the two may touch what the fusion moves: the anchor's
  // output (now written later, or not at all) and the consumer's operands
  // (now read and written earlier).
  SmallVector<Value> moved(consumer.getInputs());
  llvm::append_range(moved, consumer.getOutputs());
  moved.push_back(anchorOut);
  if (Operation *between = findUseBetween(op, consumer, moved))
    return err() << "'" << between->getName()
                 << "' between the two uses a memref the fusion reorders";
  // The consumer's operands defined between the two (a bufferized tensor
  // program allocates the consumer's output there) move above the anchor.
  if (failed(collectHoisted(op, consumer, fused.hoisted, err)))
    return failure();
  // The anchor's output is stored as well when anything else may read it.
  fused.keepAnchorOutput = isReadElsewhere(anchorOut, {op, consumer});
  return std::optional<FusedConsumer>(fused);
}

void tiling::emitFusedStore(OpBuilder &b, Location loc, const TilingPlan &plan,
                            const FusedConsumer &fused, ArrayAttr spatialAxes,
                            ArrayRef<int64_t> spatialThreads,
                            ArrayRef<Value> offsets, ValueRange bounds,
                            Value frag, Value anchorTarget,
                            AffineMap anchorTargetMap,
                            FragmentLayoutAttrInterface layout) {
  MLIRContext *ctx = b.getContext();
  ComputeOp consumer = fused.consumer;
  unsigned numSpatial = plan.spatialAxes.size();
  SmallVector<unsigned> spatialPos(plan.axes.size(), 0);
  for (auto [j, a] : llvm::enumerate(plan.spatialAxes))
    spatialPos[a] = j;

  // A view of one of the consumer's operands over the tile's window, and
  // its map from the tile's spatial points.
  auto windowOf = [&](Value memref, AffineMap map) {
    SmallVector<OpFoldResult> origins, sizes, strides;
    SmallVector<AffineExpr> local;
    for (AffineExpr e : map.getResults()) {
      strides.push_back(b.getIndexAttr(1));
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        origins.push_back(b.getIndexAttr(c.getValue()));
        sizes.push_back(b.getIndexAttr(1));
        local.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      unsigned a = fused.anchorAxis[cast<AffineDimExpr>(e).getPosition()];
      origins.push_back(offsets[a]);
      sizes.push_back(b.getIndexAttr(plan.tile[a]));
      local.push_back(getAffineDimExpr(spatialPos[a], ctx));
    }
    Value view =
        memref::SubViewOp::create(b, loc, memref, origins, sizes, strides);
    return std::make_pair(view, AffineMap::get(numSpatial, 0, local, ctx));
  };

  SmallVector<Value> ins = {frag}, outs;
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(numSpatial, ctx)};
  SmallVector<Type> argTypes = {cast<MemRefType>(frag.getType()).getElementType()};
  for (auto [i, in] : llvm::enumerate(consumer.getInputs())) {
    if (i == fused.input)
      continue;
    auto [view, map] = windowOf(in, consumer.getInputMap(i));
    ins.push_back(view);
    maps.push_back(map);
    argTypes.push_back(cast<MemRefType>(in.getType()).getElementType());
  }
  auto [target, targetMap] =
      windowOf(consumer.getOutputs()[0], consumer.getOutputMap(0));
  outs.push_back(target);
  maps.push_back(targetMap);
  if (anchorTarget) {
    outs.push_back(anchorTarget);
    maps.push_back(anchorTargetMap);
  }

  auto store = TileComputeOp::create(
      b, phaseLoc(loc, "epilogue of fused consumer " + nameOfConsumer(fused)),
      spatialAxes, b.getDenseI64ArrayAttr(spatialThreads), bounds, ins, outs,
      b.getAffineMapArrayAttr(maps), CombinerKindAttr(), ArrayAttr(),
      UnitAttr(), layout);
  OpBuilder::InsertionGuard g(b);
  SmallVector<Location> argLocs(argTypes.size(), loc);
  Block *body = b.createBlock(&store.getBody(), {}, argTypes, argLocs);
  // The consumer's body on (accumulator, its other inputs); its ext.index
  // of axis d is the anchor's tile-local index of the matching axis plus
  // the tile's offset there.
  IRMapping mapping;
  Block &src = consumer.getBodyBlock();
  unsigned next = 1;
  for (auto [i, arg] : llvm::enumerate(src.getArguments()))
    mapping.map(arg, i == fused.input ? body->getArgument(0)
                                      : body->getArgument(next++));
  SmallVector<AxisAttr> consumerAxes = consumer.getAxisList();
  for (Operation &inner : src.without_terminator()) {
    if (auto index = dyn_cast<IndexOp>(inner)) {
      unsigned d = *consumer.getAxisPosition(index.getAxis());
      unsigned a = fused.anchorAxis[d];
      Value local = IndexOp::create(b, index.getLoc(), b.getIndexType(),
                                    plan.axes[a].getName());
      mapping.map(index.getResult(),
                  arith::AddIOp::create(b, index.getLoc(), local, offsets[a])
                      .getResult());
      continue;
    }
    b.clone(inner, mapping);
  }
  auto yield = cast<YieldOp>(src.getTerminator());
  SmallVector<Value> values = {mapping.lookupOrDefault(yield.getValues()[0])};
  if (anchorTarget)
    values.push_back(body->getArgument(0));
  YieldOp::create(b, yield.getLoc(), values);
}

std::string tiling::nameOfConsumer(const FusedConsumer &fused) {
  return quotedName(fused.consumer);
}
