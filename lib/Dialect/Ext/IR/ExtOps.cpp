//===- ExtOps.cpp - ext operations ----------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Support/AffineRange.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

// ext.compute and ext.tile_compute share their structure (axes, maps, body,
// combiner) through ComputeLikeOpInterface; the verifier below serves both.
#include "ext/Dialect/Ext/IR/ExtOpInterfaces.cpp.inc"

/// Inputs are read, outputs written (and read too when accumulating).
template <typename OpT>
static void getComputeEffects(
    OpT op, bool readsOutputs,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &in : op.getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &in,
                         SideEffects::DefaultResource::get());
  for (OpOperand &out : op.getOutputsMutable()) {
    if (readsOutputs)
      effects.emplace_back(MemoryEffects::Read::get(), &out,
                           SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &out,
                         SideEffects::DefaultResource::get());
  }
}

void ComputeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getComputeEffects(*this, /*readsOutputs=*/false, effects);
}

void TileComputeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getComputeEffects(*this, getAccumulate(), effects);
}

/// AffineExpr has no diagnostic streaming; print it.
static std::string str(AffineExpr expr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  expr.print(os);
  return s;
}

/// Describes operand `i` for diagnostics: "input #0" or "output #1".
template <typename OpT>
static std::string describeOperand(OpT op, unsigned i) {
  unsigned numInputs = op.getInputs().size();
  if (i < numInputs)
    return "input #" + std::to_string(i);
  return "output #" + std::to_string(i - numInputs);
}

static LogicalResult verifyComputeLike(ComputeLikeOpInterface op) {
  auto emitOpError = [&](const Twine &msg = {}) { return op.emitOpError(msg); };
  auto getAxisList = [&] { return op.getAxisList(); };
  auto getOutputs = [&] { return op.getOutputs(); };
  auto getInputs = [&] { return op.getInputs(); };
  auto getMaps = [&] { return op.getMaps(); };
  auto getExtents = [&] { return op.getExtents(); };
  auto hasReduceAxes = [&] { return op.hasReduceAxes(); };
  auto getCombiner = [&] { return op.getCombiner(); };
  auto getIdentity = [&] { return op.getIdentity(); };
  auto getReducer = [&]() -> Region & { return op.getReducer(); };
  SmallVector<AxisAttr> axes = getAxisList();
  if (axes.empty())
    return emitOpError("has an empty iteration domain: it needs at least one "
                       "axis");

  llvm::StringMap<unsigned> positions;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    auto [it, inserted] = positions.try_emplace(axis.getName(), i);
    if (!inserted)
      return emitOpError() << "names axis '" << axis.getName()
                           << "' twice (axes #" << it->second << " and #" << i
                           << ")";
  }

  if (getOutputs().empty())
    return emitOpError("needs at least one output");

  SmallVector<AffineMap> maps = getMaps();
  SmallVector<Value> operands = llvm::to_vector(getInputs());
  llvm::append_range(operands, getOutputs());
  if (maps.size() != operands.size())
    return emitOpError() << "expects one indexing map per operand ("
                         << operands.size() << "), got " << maps.size();

  SmallVector<int64_t> extents = getExtents();
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    if (map.getNumSymbols() != 0)
      return emitOpError() << "indexing map of " << describeOperand(op, i)
                           << " has symbols; accesses are affine in the axes "
                              "only";
    if (map.getNumDims() != axes.size())
      return emitOpError() << "indexing map of " << describeOperand(op, i)
                           << " has " << map.getNumDims()
                           << " dimensions, expected one per axis ("
                           << axes.size() << ")";
    if (map.getNumResults() != type.getRank())
      return emitOpError() << "indexing map of " << describeOperand(op, i)
                           << " has " << map.getNumResults()
                           << " results but the operand " << type
                           << " has rank " << type.getRank();
    // The affine parser keeps `d0 mod 0` unfolded; upstream's flattener and
    // lower-affine then divide by it.
    for (AffineExpr expr : map.getResults()) {
      std::optional<AffineExpr> bad;
      expr.walk([&](AffineExpr e) {
        auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        if (!bin || bad || (e.getKind() != AffineExprKind::Mod &&
                            e.getKind() != AffineExprKind::FloorDiv &&
                            e.getKind() != AffineExprKind::CeilDiv))
          return;
        auto rhs = dyn_cast<AffineConstantExpr>(bin.getRHS());
        if (!rhs || rhs.getValue() <= 0)
          bad = e;
      });
      if (bad)
        return emitOpError() << "indexing map of " << describeOperand(op, i)
                             << " divides by '"
                             << str(cast<AffineBinaryOpExpr>(*bad).getRHS())
                             << "' in '" << str(*bad)
                             << "'; mod and divisions need a positive "
                                "constant divisor";
    }
  }

  // Outputs: each element is written exactly once, so an output map is a
  // permutation of the spatial axes (projected: it names each exactly once).
  unsigned numInputs = getInputs().size();
  for (unsigned o = 0, e = getOutputs().size(); o < e; ++o) {
    AffineMap map = maps[numInputs + o];
    llvm::SmallBitVector used(axes.size());
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return emitOpError() << "indexing map of output #" << o << " result #"
                             << r << " is '" << str(expr)
                             << "'; output accesses must be single axes";
      AxisAttr axis = axes[dim.getPosition()];
      if (axis.isReduce())
        return emitOpError() << "indexing map of output #" << o
                             << " uses reduce axis '" << axis.getName()
                             << "'; a reduce axis must not index an output";
      if (used.test(dim.getPosition()))
        return emitOpError() << "indexing map of output #" << o
                             << " uses axis '" << axis.getName() << "' twice";
      used.set(dim.getPosition());
    }
    for (auto [a, axis] : llvm::enumerate(axes))
      if (axis.isSpatial() && !used.test(a))
        return emitOpError() << "indexing map of output #" << o
                             << " does not use spatial axis '"
                             << axis.getName()
                             << "'; every spatial axis must index every output";
  }

  // Shapes: a single-axis access must span the operand's dimension exactly;
  // a compound access (convolution's oh + kh) must stay inside it.
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      if (type.isDynamicDim(r))
        continue;
      int64_t size = type.getDimSize(r);
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        AxisAttr axis = axes[dim.getPosition()];
        if (axis.getExtent() != size)
          return emitOpError()
                 << describeOperand(op, i) << " dimension #" << r
                 << " has size " << size << " but axis '" << axis.getName()
                 << "' that indexes it has extent " << axis.getExtent();
        continue;
      }
      std::optional<IndexRange> range = computeAffineRange(expr, extents);
      if (!range)
        return emitOpError() << "cannot bound the access '" << str(expr) << "' of "
                             << describeOperand(op, i);
      if (range->lo < 0 || range->hi >= size)
        return emitOpError() << "access '" << str(expr) << "' of "
                             << describeOperand(op, i) << " dimension #"
                             << r << " ranges over [" << range->lo << ", "
                             << range->hi << "], outside [0, " << size << ")";
    }
  }

  // Combiner.
  std::optional<CombinerKind> combiner = getCombiner();
  if (hasReduceAxes() && !combiner) {
    auto reduceAxis = llvm::find_if(axes, [](AxisAttr a) { return a.isReduce(); });
    return emitOpError() << "has reduce axis '" << reduceAxis->getName()
                         << "' but no combiner";
  }
  if (!hasReduceAxes() && combiner)
    return emitOpError("has a combiner but no reduce axis to combine over");

  if (combiner && *combiner == CombinerKind::custom) {
    if (!getIdentity())
      return emitOpError("with combiner(custom) needs an identity, one value "
                         "per output");
    ArrayAttr identity = *getIdentity();
    if (identity.size() != getOutputs().size())
      return emitOpError() << "has " << identity.size()
                           << " identity values but " << getOutputs().size()
                           << " outputs";
    for (auto [o, out] : llvm::enumerate(getOutputs())) {
      Type elem = cast<MemRefType>(out.getType()).getElementType();
      Type idType = cast<TypedAttr>(identity[o]).getType();
      if (idType != elem)
        return emitOpError() << "identity #" << o << " has type " << idType
                             << " but output #" << o << " has element type "
                             << elem;
    }
    if (getReducer().empty())
      return emitOpError("with combiner(custom) needs a reducer region");
  } else {
    if (getIdentity())
      return emitOpError("takes an identity only with combiner(custom); the "
                         "built-in combiners have their own");
    if (!getReducer().empty())
      return emitOpError("takes a reducer region only with combiner(custom)");
    if (combiner) {
      for (auto [o, out] : llvm::enumerate(getOutputs())) {
        Type elem = cast<MemRefType>(out.getType()).getElementType();
        if (!isCombinableType(*combiner, elem))
          return emitOpError()
                 << "combiner '" << stringifyCombinerKind(*combiner)
                 << "' needs integer or floating-point outputs, output #" << o
                 << " has element type " << elem;
      }
    }
  }
  return success();
}

std::optional<ProductBody> ext::matchProductBody(ComputeLikeOpInterface op) {
  if (op.getCombiner() != CombinerKind::sum || op.getInputs().size() != 2 ||
      op.getOutputs().size() != 1)
    return std::nullopt;
  Block &body = op.getBodyBlock();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return std::nullopt;
  auto mul = yield.getValues()[0].getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  auto inputOf = [&](Value v) -> std::optional<unsigned> {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body)
      return std::nullopt;
    return arg.getArgNumber();
  };
  std::optional<unsigned> lhs = inputOf(mul.getLhs());
  std::optional<unsigned> rhs = inputOf(mul.getRhs());
  if (!lhs || !rhs || *lhs == *rhs)
    return std::nullopt;
  return ProductBody{*lhs, *rhs};
}

/// Checks an mma schedule: the GEMM shape of the compute (two spatial axes,
/// one reduce axis), cached inputs, and, for a named instruction, the tile
/// against warps x instruction shape and the inputs' types.
static LogicalResult verifyMmaSchedule(ComputeOp op, ScheduleAttr schedule,
                                       function_ref<InFlightDiagnostic()> err) {
  MmaLayoutAttr mma = schedule.getMma();
  SmallVector<AxisAttr> axes = op.getAxisList();
  SmallVector<unsigned> spatial, reduce;
  for (auto [a, axis] : llvm::enumerate(axes))
    (axis.isSpatial() ? spatial : reduce).push_back(a);
  if (spatial.size() != 2 || reduce.size() != 1)
    return err() << "mma needs two spatial axes (M, N) and one reduce axis "
                    "(K); the compute has "
                 << spatial.size() << " and " << reduce.size();
  if (schedule.getThreads()[reduce[0]] != 1)
    return err() << "mma computes the reduce axis in the instruction; its "
                    "threads must be 1";
  llvm::SmallBitVector cached(op.getInputs().size());
  for (CacheAttr c : schedule.getCache())
    if (c.getOperand() >= 0 &&
        c.getOperand() < static_cast<int64_t>(cached.size()))
      cached.set(c.getOperand());
  if (!cached.all())
    return err() << "mma reads its operands from shared memory: cache every "
                    "input";
  if (mma.getShape() == MmaShape::automatic)
    return success();
  int64_t tileK = schedule.getTile()[reduce[0]];
  if (tileK % mma.getK() != 0)
    return err() << "tile size " << tileK << " of reduce axis '"
                 << axes[reduce[0]].getName()
                 << "' is not a multiple of the instruction's K = "
                 << mma.getK() << " (" << mma << ")";
  if (std::optional<ProductBody> product = matchProductBody(op)) {
    for (Value in : op.getInputs()) {
      Type elem = cast<MemRefType>(in.getType()).getElementType();
      if (!mma.takesInputType(elem))
        return err() << mma << " takes " << mma.inputTypesText()
                     << " inputs, not " << elem;
    }
    Type acc = cast<MemRefType>(op.getOutputs()[0].getType()).getElementType();
    if (!acc.isF32())
      return err() << mma << " accumulates in f32, not " << acc;
  }
  return success();
}

/// Checks that `schedule` fits `op`: one tile size and thread count per
/// axis, block bindings that the decomposition can realize, thread counts a
/// CTA can hold and that divide their tiles, cached operands that exist.
static LogicalResult verifyScheduleFor(ComputeOp op, ScheduleAttr schedule) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  auto err = [&]() { return op.emitOpError() << "schedule: "; };
  if (schedule.getTile().size() != axes.size())
    return err() << "has " << schedule.getTile().size()
                 << " tile sizes but the compute has " << axes.size()
                 << " axes";
  if (schedule.getThreads().size() != axes.size())
    return err() << "has " << schedule.getThreads().size()
                 << " thread counts but the compute has " << axes.size()
                 << " axes";

  llvm::SmallBitVector blocked(axes.size());
  for (StringAttr nameAttr : schedule.getBlocks()) {
    StringRef name = nameAttr.getValue();
    std::optional<unsigned> pos = op.getAxisPosition(name);
    if (!pos)
      return err() << "binds axis '" << name
                   << "' to blocks, but the compute has no such axis";
    if (blocked.test(*pos))
      return err() << "binds axis '" << name << "' to blocks twice";
    blocked.set(*pos);
  }

  TileDecompositionAttrInterface decomposition =
      schedule.getDecompositionOrDefault();
  int64_t numThreads = 1;
  unsigned threadReduceAxes = 0, splitReduceAxes = 0;
  for (auto [a, axis] : llvm::enumerate(axes)) {
    int64_t tile = schedule.getTile()[a], threads = schedule.getThreads()[a];
    if (tile > axis.getExtent())
      return err() << "tile size " << tile << " of axis '" << axis.getName()
                   << "' exceeds its extent " << axis.getExtent();
    // Saturates: thread counts come from the input.
    numThreads = llvm::checkedMul(numThreads, threads).value_or(INT64_MAX);
    if (axis.isSpatial()) {
      if (tile < axis.getExtent() && !blocked.test(a))
        return err() << "spatial axis '" << axis.getName() << "' is tiled ("
                     << tile << " of " << axis.getExtent()
                     << ") but not bound to blocks";
      if (tile % threads != 0)
        return err() << "tile size " << tile << " of axis '" << axis.getName()
                     << "' is not a multiple of its " << threads
                     << " threads";
      continue;
    }
    if (blocked.test(a) && !decomposition.splitsReduction())
      return err() << "binds reduce axis '" << axis.getName()
                   << "' to blocks, but decomposition " << decomposition
                   << " does not split the reduction";
    if (threads > 1) {
      ++threadReduceAxes;
      if (tile != axis.getExtent())
        return err() << "reduce axis '" << axis.getName() << "' runs on "
                     << threads << " threads, so one tile must cover it (tile "
                     << tile << " of extent " << axis.getExtent() << ")";
      if (!llvm::isPowerOf2_64(threads))
        return err() << "reduce axis '" << axis.getName() << "' runs on "
                     << threads << " threads; a tree reduction needs a power "
                                   "of two";
    }
    if (tile < axis.getExtent())
      ++splitReduceAxes;
  }
  if (threadReduceAxes > 1)
    return err() << "binds " << threadReduceAxes
                 << " reduce axes to threads; at most one is supported";
  if (splitReduceAxes > 1)
    return err() << "tiles " << splitReduceAxes
                 << " reduce axes below their extents; only one reduce axis "
                    "can be iterated over";
  if (numThreads == INT64_MAX)
    return err() << "asks for more than 2^63 threads per block; a block "
                    "allows at most 1024";
  if (numThreads > 1024)
    return err() << "asks for " << numThreads
                 << " threads per block; a block allows at most 1024";

  SmallVector<int64_t> spatialTile, spatialThreads;
  for (auto [a, axis] : llvm::enumerate(axes))
    if (axis.isSpatial()) {
      spatialTile.push_back(schedule.getTile()[a]);
      spatialThreads.push_back(schedule.getThreads()[a]);
    }
  FragmentLayoutAttrInterface layout = schedule.getLayoutOrDefault();
  if (MmaLayoutAttr mma = schedule.getMma()) {
    if (failed(verifyMmaSchedule(op, schedule, err)))
      return failure();
    // `auto` is resolved (and checked) by ext-apply-schedule.
    layout = mma.getShape() == MmaShape::automatic
                 ? FragmentLayoutAttrInterface()
                 : MmaLayoutAttr::get(op.getContext(), mma.getShape(),
                                      schedule.getWarps());
  }
  if (layout &&
      failed(layout.verifyDistribution(err, spatialTile, spatialThreads)))
    return failure();

  // Operands number the inputs, then the outputs.
  int64_t numInputs = op.getInputs().size();
  int64_t numOperands = numInputs + op.getOutputs().size();
  llvm::SmallBitVector cached(numOperands);
  for (CacheAttr cache : schedule.getCache()) {
    int64_t operand = cache.getOperand();
    if (operand < 0 || operand >= numOperands)
      return err() << "caches operand #" << operand << ", but the compute has "
                   << numInputs << " inputs and " << op.getOutputs().size()
                   << " outputs";
    bool isOutput = operand >= numInputs;
    std::string name =
        (isOutput ? "output #" + Twine(operand - numInputs)
                  : "input #" + Twine(operand))
            .str();
    if (cached.test(operand))
      return err() << "caches " << name << " twice";
    cached.set(operand);
    if (isOutput && !op.hasReduceAxes())
      return err() << "caches " << name
                   << ", but only a compute with reduce axes accumulates "
                      "its outputs in an epilogue that can stage them";
    Value value = isOutput ? op.getOutputs()[operand - numInputs]
                           : op.getInputs()[operand];
    int64_t rank = cast<MemRefType>(value.getType()).getRank();
    for (StorageAlignAttr align : cache.getAlign())
      if (align.getDim() >= rank)
        return err() << "storage_align of " << name << " names dimension "
                     << align.getDim() << " of a rank-" << rank << " operand";
    if (!isOutput && schedule.getStages() > 1 && cache.getSwizzle())
      return err() << "stages = " << schedule.getStages() << " with swizzled "
                   << name
                   << " is not supported (pipelined stages are padded "
                      "buffers; use align)";
  }
  if (schedule.getStages() > 1) {
    if (splitReduceAxes == 0)
      return err() << "stages = " << schedule.getStages()
                   << " pipelines the k-loop, but no reduce axis is tiled "
                      "below its extent (there is no k-loop)";
    if (cached.find_first() < 0 || cached.find_first() >= numInputs)
      return err() << "stages = " << schedule.getStages()
                   << " multi-buffers cached inputs, but the schedule "
                      "caches none";
  }
  return success();
}

LogicalResult ComputeOp::verify() {
  if (failed(verifyComputeLike(*this)))
    return failure();
  if (ScheduleAttr schedule = getScheduleAttr())
    return verifyScheduleFor(*this, schedule);
  return success();
}

/// Checks that `block` ends in an ext.yield of values of `types`.
static LogicalResult verifyYield(Operation *op, Block &block, TypeRange types,
                                 StringRef regionName) {
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << regionName << " must end in ext.yield";
  if (yield.getValues().size() != types.size())
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values but the "
           << regionName << " of its ext.compute must yield " << types.size()
           << ", one per output";
  for (auto [i, v, t] : llvm::enumerate(yield.getValues(), types))
    if (v.getType() != t)
      return yield.emitOpError() << "value #" << i << " has type "
                                 << v.getType() << " but output #" << i
                                 << " has element type " << t;
  return success();
}

/// Body and reducer are scalar: all memory traffic is the compute's own.
static LogicalResult verifyNoMemoryEffects(Region &region) {
  WalkResult r = region.walk([](Operation *nested) {
    if (isa<YieldOp, IndexOp>(nested) || isMemoryEffectFree(nested))
      return WalkResult::advance();
    nested->emitOpError("has memory effects, which are not allowed in the "
                        "regions of an ext.compute");
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

static LogicalResult verifyComputeLikeRegions(ComputeLikeOpInterface op) {
  auto emitOpError = [&](const Twine &msg = {}) { return op.emitOpError(msg); };
  auto getInputs = [&] { return op.getInputs(); };
  auto getBody = [&]() -> Region & { return op.getBody(); };
  auto getReducer = [&]() -> Region & { return op.getReducer(); };
  Block &body = op.getBodyBlock();
  SmallVector<Type> outElems = llvm::map_to_vector(op.getOutputs(), [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  });

  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments, expected one per input ("
                         << getInputs().size() << ")";
  for (auto [i, arg, in] : llvm::enumerate(body.getArguments(), getInputs())) {
    Type elem = cast<MemRefType>(in.getType()).getElementType();
    if (arg.getType() != elem)
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has element type " << elem;
  }
  if (failed(verifyYield(op, body, outElems, "body")) ||
      failed(verifyNoMemoryEffects(getBody())))
    return failure();

  if (getReducer().empty())
    return success();
  if (!getReducer().hasOneBlock())
    return emitOpError("reducer must have exactly one block");
  Block &reducer = getReducer().front();
  unsigned numOutputs = outElems.size();
  if (reducer.getNumArguments() != 2 * numOutputs)
    return emitOpError() << "reducer has " << reducer.getNumArguments()
                         << " arguments, expected " << 2 * numOutputs
                         << ": the accumulated values, then the new ones";
  for (auto [i, arg] : llvm::enumerate(reducer.getArguments())) {
    Type expected = outElems[i % numOutputs];
    if (arg.getType() != expected)
      return emitOpError() << "reducer argument #" << i << " has type "
                           << arg.getType() << ", expected " << expected
                           << " (output #" << i % numOutputs << ")";
  }
  if (failed(verifyYield(op, reducer, outElems, "reducer")) ||
      failed(verifyNoMemoryEffects(getReducer())))
    return failure();
  return success();
}

LogicalResult ComputeOp::verifyRegions() {
  return verifyComputeLikeRegions(*this);
}

//===----------------------------------------------------------------------===//
// IndexOp
//===----------------------------------------------------------------------===//

LogicalResult IndexOp::verify() {
  Operation *parent = (*this)->getParentOp();
  while (parent && !isa<ComputeOp, TileComputeOp>(parent))
    parent = parent->getParentOp();
  if (!parent)
    return emitOpError("must be inside the body of an ext.compute");
  Region &body = parent->getRegion(0);
  if (!body.isAncestor((*this)->getParentRegion()))
    return emitOpError("is only valid in the body of an ext.compute, not in "
                       "its reducer");
  ArrayAttr axesAttr = isa<ComputeOp>(parent)
                           ? cast<ComputeOp>(parent).getAxes()
                           : cast<TileComputeOp>(parent).getAxes();
  SmallVector<AxisAttr> axes = llvm::to_vector(axesAttr.getAsRange<AxisAttr>());
  if (llvm::none_of(axes, [&](AxisAttr a) { return a.getName() == getAxis(); })) {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleaveComma(axes, os, [&](AxisAttr a) { os << a.getName(); });
    return emitOpError() << "names axis '" << getAxis()
                         << "', which the enclosing ext.compute does not "
                            "have (its axes: "
                         << names << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TileComputeOp
//===----------------------------------------------------------------------===//

int64_t TileComputeOp::getNumThreads() {
  // Saturates at INT64_MAX (the counts come from the input).
  int64_t n = 1;
  for (int64_t t : getThreads())
    n = llvm::checkedMul(n, t).value_or(INT64_MAX);
  return n;
}

LogicalResult TileComputeOp::verify() {
  if (failed(verifyComputeLike(*this)))
    return failure();
  unsigned numAxes = getAxes().size();
  if (getThreads().size() != numAxes)
    return emitOpError() << "has " << getThreads().size()
                         << " thread counts but " << numAxes << " axes";
  if (llvm::any_of(getThreads(), [](int64_t t) { return t < 1; }))
    return emitOpError("thread counts must be positive");
  if (!getBounds().empty() && getBounds().size() != numAxes)
    return emitOpError() << "has " << getBounds().size()
                         << " bounds but " << numAxes
                         << " axes; give one per axis or none";
  if (getAccumulate() && !hasReduceAxes())
    return emitOpError("accumulates, but has no reduce axis");
  SmallVector<int64_t> spatialShape, spatialThreads;
  for (auto [a, axis] : llvm::enumerate(getAxisList())) {
    int64_t threads = getThreads()[a];
    // Each thread takes extent / threads points of a spatial axis: a
    // remainder would be points no thread computes. (A reduce axis is
    // strided over its threads up to `bounds`, so any extent works.)
    if (axis.isSpatial() && axis.getExtent() % threads != 0)
      return emitOpError() << "spatial axis '" << axis.getName()
                           << "' of extent " << axis.getExtent() << " runs on "
                           << threads << " threads, which do not divide it";
    if (axis.isReduce() && threads > 1 && !llvm::isPowerOf2_64(threads))
      return emitOpError() << "reduce axis '" << axis.getName() << "' runs on "
                           << threads
                           << " threads; a tree reduction needs a power of two";
    if (axis.isSpatial()) {
      spatialShape.push_back(axis.getExtent());
      spatialThreads.push_back(threads);
    }
  }
  return getLayoutOrDefault().verifyDistribution(
      [&]() { return emitOpError(); }, spatialShape, spatialThreads);
}

FragmentLayoutAttrInterface TileComputeOp::getLayoutOrDefault() {
  if (FragmentLayoutAttrInterface layout = getLayoutAttr())
    return layout;
  return CyclicLayoutAttr::get(getContext());
}

LogicalResult TileComputeOp::verifyRegions() {
  return verifyComputeLikeRegions(*this);
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

int64_t KernelOp::getNumTiles() {
  int64_t n = 1;
  for (int64_t t : getTiles())
    n *= t;
  return n;
}

LogicalResult KernelOp::verify() {
  if (llvm::any_of(getTiles(), [](int64_t t) { return t < 1; }))
    return emitOpError("tile counts must be positive");
  if (getIters() < 1)
    return emitOpError("needs at least one reduce iteration per tile");
  if (getThreads() < 1 || getThreads() > 1024)
    return emitOpError() << "has " << getThreads()
                         << " threads per block; a block holds 1 to 1024";
  if (getSwizzle() < 1)
    return emitOpError("swizzle must be positive");
  return getDecomposition().verifyProblem(
      [&]() { return emitOpError(); }, getNumTiles(), getIters(),
      DeviceFacts());
}

LogicalResult KernelOp::verifyRegions() {
  unsigned numDims = getNumTileDims();
  Block &body = getBody().front();
  if (body.getNumArguments() != numDims + 2 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "body takes " << numDims
                         << " tile coordinates, k_begin and k_end, all index";
  auto yield = dyn_cast<KernelYieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end in ext.kernel_yield");
  Block &epilogue = getEpilogue().front();
  unsigned numFrags = yield.getFragments().size();
  if (epilogue.getNumArguments() != numDims + numFrags)
    return emitOpError() << "epilogue takes " << numDims
                         << " tile coordinates and the " << numFrags
                         << " fragments the body yields";
  for (unsigned d = 0; d < numDims; ++d)
    if (!epilogue.getArgument(d).getType().isIndex())
      return emitOpError("epilogue's tile coordinates must be index");
  for (auto [i, frag] : llvm::enumerate(yield.getFragments()))
    if (epilogue.getArgument(numDims + i).getType() != frag.getType())
      return emitOpError() << "epilogue argument #" << numDims + i
                           << " has type "
                           << epilogue.getArgument(numDims + i).getType()
                           << " but the body yields " << frag.getType();
  auto epilogueYield = dyn_cast<KernelYieldOp>(epilogue.getTerminator());
  if (!epilogueYield || !epilogueYield.getFragments().empty())
    return emitOpError("epilogue must end in an empty ext.kernel_yield");
  // Partial accumulators of a split tile combine with the combiner.
  if (!getCombiner()) {
    if (getIdentity() || !getReducer().empty())
      return emitOpError("has an identity or a reducer but no combiner");
    if (numFrags != 0 && getIters() > 1 &&
        getDecomposition().splitsReduction())
      return emitOpError() << "splits its reduction with "
                           << getDecomposition()
                           << " but has no combiner for the partial tiles";
    return success();
  }
  if (*getCombiner() != CombinerKind::custom) {
    if (getIdentity() || !getReducer().empty())
      return emitOpError("takes an identity and a reducer only with the "
                         "custom combiner");
    for (Value frag : yield.getFragments()) {
      Type elem = cast<MemRefType>(frag.getType()).getElementType();
      if (!isCombinableType(*getCombiner(), elem))
        return emitOpError() << "combiner " << stringifyCombinerKind(
                                    *getCombiner())
                             << " is not defined on fragment element type "
                             << elem;
    }
    return success();
  }
  if (!getIdentity() || getIdentity()->size() != numFrags ||
      !getReducer().hasOneBlock())
    return emitOpError() << "with a custom combiner needs one identity per "
                            "fragment ("
                         << numFrags << ") and a reducer";
  Block &reducer = getReducer().front();
  if (reducer.getNumArguments() != 2 * numFrags)
    return emitOpError() << "reducer takes the " << numFrags
                         << " accumulated values and the " << numFrags
                         << " new ones";
  for (auto [i, frag] : llvm::enumerate(yield.getFragments())) {
    Type elem = cast<MemRefType>(frag.getType()).getElementType();
    if (reducer.getArgument(i).getType() != elem ||
        reducer.getArgument(numFrags + i).getType() != elem ||
        cast<TypedAttr>((*getIdentity())[i]).getType() != elem)
      return emitOpError() << "reducer argument and identity #" << i
                           << " must have the fragment's element type "
                           << elem;
  }
  auto reducerYield = dyn_cast<YieldOp>(reducer.getTerminator());
  if (!reducerYield || reducerYield.getValues().size() != numFrags)
    return emitOpError() << "reducer must yield " << numFrags << " values";
  return success();
}

//===----------------------------------------------------------------------===//
// AllocSharedOp, AllocFragmentOp, CopyOp
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
AllocSharedOp::computeAlignedStrides(ArrayRef<int64_t> shape,
                                     ArrayRef<StorageAlignAttr> aligns) {
  // Every step is checked: shapes and factors come from the input IR.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    std::optional<int64_t> stride = 1;
    if (d + 1 < static_cast<int64_t>(shape.size()))
      stride = llvm::checkedMul(strides[d + 1], shape[d + 1]);
    for (StorageAlignAttr a : aligns) {
      if (!stride)
        break;
      if (a.getDim() != d)
        continue;
      // (factor + offset - stride % factor) % factor, with offset < factor
      // (the attribute's verifier): the same value without the overflowing
      // sum.
      int64_t rem = *stride % a.getFactor();
      int64_t pad = a.getOffset() >= rem ? a.getOffset() - rem
                                         : a.getFactor() - (rem - a.getOffset());
      stride = llvm::checkedAdd(*stride, pad % a.getFactor());
    }
    if (!stride)
      return failure();
    strides[d] = *stride;
  }
  if (!shape.empty() && !llvm::checkedMul(strides[0], shape[0]))
    return failure();
  return strides;
}

LogicalResult
ext::verifySwizzleOnTile(SwizzleAttr swizzle, int64_t numElements,
                         function_ref<InFlightDiagnostic()> emitError) {
  std::optional<int64_t> escape = swizzle.findEscape(numElements);
  if (!escape)
    return success();
  if (*escape < 0)
    return emitError() << swizzle << " cannot be checked on a tile of "
                       << numElements << " elements (too large)";
  return emitError() << swizzle << " is not a bijection on a tile of "
                     << numElements << " elements: offset " << *escape
                     << " maps to " << swizzle.apply(*escape);
}

SmallVector<StorageAlignAttr> AllocSharedOp::getAligns() {
  if (!getStorageAlign())
    return {};
  return llvm::to_vector(getStorageAlign()->getAsRange<StorageAlignAttr>());
}

LogicalResult AllocSharedOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!type.hasStaticShape())
    return emitOpError() << "needs a static shape, got " << type;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return emitOpError() << "result must be in #gpu.address_space<workgroup>, "
                            "got "
                         << type;
  SmallVector<StorageAlignAttr> aligns = getAligns();
  for (StorageAlignAttr a : aligns)
    if (a.getDim() >= type.getRank())
      return emitOpError() << "storage_align names dimension " << a.getDim()
                           << " of a rank-" << type.getRank() << " buffer";
  FailureOr<SmallVector<int64_t>> expectedOr =
      computeAlignedStrides(type.getShape(), aligns);
  if (failed(expectedOr))
    return emitOpError() << "padded size of " << type
                         << " overflows a 64-bit element count";
  if (std::optional<SwizzleAttr> swizzle = getSwizzle()) {
    if (!aligns.empty())
      return emitOpError() << "takes either storage_align (padding) or "
                              "swizzle, not both";
    if (failed(verifySwizzleOnTile(*swizzle, type.getNumElements(),
                                   [&]() { return emitOpError(); })))
      return failure();
  }
  SmallVector<int64_t> &expected = *expectedOr;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0 ||
      strides != ArrayRef<int64_t>(expected)) {
    std::string str;
    llvm::raw_string_ostream os(str);
    llvm::interleaveComma(expected, os);
    return emitOpError() << "layout must have offset 0 and strides [" << str
                         << "] (row-major padded by storage_align), got "
                         << type;
  }
  return success();
}

LogicalResult AllocFragmentOp::verify() {
  auto type = cast<MemRefType>(getFragment().getType());
  if (static_cast<int64_t>(getThreads().size()) != type.getRank())
    return emitOpError() << "has " << getThreads().size()
                         << " thread counts for a rank-" << type.getRank()
                         << " fragment";
  for (auto [d, t] : llvm::enumerate(getThreads()))
    if (t < 1 || type.getDimSize(d) % t != 0)
      return emitOpError() << "dimension #" << d << " of size "
                           << type.getDimSize(d)
                           << " is not a multiple of its " << t << " threads";
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return emitOpError("must be a plain identity-layout memref");
  return getLayoutOrDefault().verifyDistribution(
      [&]() { return emitOpError(); }, type.getShape(), getThreads());
}

FragmentLayoutAttrInterface AllocFragmentOp::getLayoutOrDefault() {
  if (FragmentLayoutAttrInterface layout = getLayoutAttr())
    return layout;
  return CyclicLayoutAttr::get(getContext());
}

LogicalResult CopyOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto dst = cast<MemRefType>(getTarget().getType());
  if (src.getRank() != dst.getRank())
    return emitOpError() << "copies a rank-" << dst.getRank()
                         << " window out of a rank-" << src.getRank()
                         << " source";
  if (getOffsets().size() != static_cast<size_t>(src.getRank()))
    return emitOpError() << "needs one offset per source dimension ("
                         << src.getRank() << "), got " << getOffsets().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copies " << src.getElementType() << " into "
                         << dst.getElementType();
  if (!dst.hasStaticShape())
    return emitOpError("target must have a static shape");
  if (getVector() < 1 || !llvm::isPowerOf2_64(getVector()))
    return emitOpError("vector width must be a power of two");
  if (getStaged() &&
      !isa_and_nonnull<gpu::AddressSpaceAttr>(dst.getMemorySpace()))
    return emitOpError("stages its copy into ")
           << dst << "; a staged copy targets shared memory";
  return success();
}

LogicalResult CopyWaitOp::verify() {
  if (getPendingAttr().getInt() < 0)
    return emitOpError() << "pending must be non-negative, got "
                         << getPendingAttr().getInt();
  return success();
}

LogicalResult StoreTileOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto dst = cast<MemRefType>(getTarget().getType());
  if (src.getRank() != dst.getRank())
    return emitOpError() << "stores a rank-" << src.getRank()
                         << " tile into a rank-" << dst.getRank() << " target";
  if (getOffsets().size() != static_cast<size_t>(dst.getRank()))
    return emitOpError() << "needs one offset per target dimension ("
                         << dst.getRank() << "), got " << getOffsets().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "stores " << src.getElementType() << " into "
                         << dst.getElementType();
  if (!src.hasStaticShape())
    return emitOpError("source must have a static shape");
  if (getVector() < 1 || !llvm::isPowerOf2_64(getVector()))
    return emitOpError("vector width must be a power of two");
  return success();
}

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/IR/ExtOps.cpp.inc"
