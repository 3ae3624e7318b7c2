//===- ExtOps.cpp - ext operations ----------------------------------------===//
//
// The verifiers of ext.compute and ext.tile_compute (their shared structure:
// axes, maps, body, combiner), of ext.index, and the ops' definitions. A
// schedule's checks live in ScheduleVerification.cpp; ext.kernel and the
// tile-level memory ops in KernelOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ScheduleVerification.h"

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/GuardedReads.h"
#include "ext/Dialect/Ext/IR/IndirectReads.h"
#include "ext/Support/AffineRange.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

/// At least one axis, each named once.
static LogicalResult verifyAxisNames(ComputeLikeOpInterface op,
                                     ArrayRef<AxisAttr> axes) {
  if (axes.empty())
    return op.emitOpError("has an empty iteration domain: it needs at least "
                          "one axis");
  llvm::StringMap<unsigned> positions;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    auto [it, inserted] = positions.try_emplace(axis.getName(), i);
    if (!inserted)
      return op.emitOpError() << "names axis '" << axis.getName()
                              << "' twice (axes #" << it->second << " and #"
                              << i << ")";
  }
  return success();
}

/// Each operand's map: over the axes alone, one result per dimension, and
/// divisions by positive constants only.
static LogicalResult verifyMapShapes(ComputeLikeOpInterface op,
                                     ArrayRef<AxisAttr> axes,
                                     ArrayRef<AffineMap> maps,
                                     ArrayRef<Value> operands) {
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    // Symbols are table entries, which verifyIndirectReads checked.
    auto compute = dyn_cast<ComputeOp>(op.getOperation());
    if (map.getNumSymbols() != 0 && !(compute && compute.hasIndirectReads()))
      return op.emitOpError() << "indexing map of " << describeOperand(op, i)
                              << " has symbols; accesses are affine in the "
                                 "axes only, or bound to a table by "
                                 "`indirect`";
    if (map.getNumDims() != axes.size())
      return op.emitOpError() << "indexing map of " << describeOperand(op, i)
                              << " has " << map.getNumDims()
                              << " dimensions, expected one per axis ("
                              << axes.size() << ")";
    if (map.getNumResults() != type.getRank())
      return op.emitOpError() << "indexing map of " << describeOperand(op, i)
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
        return op.emitOpError()
               << "indexing map of " << describeOperand(op, i)
               << " divides by '"
               << str(cast<AffineBinaryOpExpr>(*bad).getRHS()) << "' in '"
               << str(*bad)
               << "'; mod and divisions need a positive constant divisor";
    }
  }
  return success();
}

/// Outputs: each element is written exactly once, so an output map is a
/// permutation of the spatial axes (projected: it names each exactly once).
static LogicalResult verifyOutputMaps(ComputeLikeOpInterface op,
                                      ArrayRef<AxisAttr> axes,
                                      ArrayRef<AffineMap> maps) {
  unsigned numInputs = op.getInputs().size();
  for (unsigned o = 0, e = op.getOutputs().size(); o < e; ++o) {
    AffineMap map = maps[numInputs + o];
    llvm::SmallBitVector used(axes.size());
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return op.emitOpError() << "indexing map of output #" << o
                                << " result #" << r << " is '" << str(expr)
                                << "'; output accesses must be single axes";
      AxisAttr axis = axes[dim.getPosition()];
      if (axis.isReduce())
        return op.emitOpError() << "indexing map of output #" << o
                                << " uses reduce axis '" << axis.getName()
                                << "'; a reduce axis must not index an output";
      if (used.test(dim.getPosition()))
        return op.emitOpError() << "indexing map of output #" << o
                                << " uses axis '" << axis.getName()
                                << "' twice";
      used.set(dim.getPosition());
    }
    for (auto [a, axis] : llvm::enumerate(axes))
      if (axis.isSpatial() && !used.test(a))
        return op.emitOpError()
               << "indexing map of output #" << o
               << " does not use spatial axis '" << axis.getName()
               << "'; every spatial axis must index every output";
  }
  return success();
}

/// Dynamic extents: an axis of extent `?` takes its size from the dynamic
/// operand dimensions it indexes alone, so it needs one, and a static
/// dimension would make it static. It cannot appear in a compound access,
/// whose range the verifier could not bound.
static LogicalResult verifyDynamicAxes(ComputeLikeOpInterface op,
                                       ArrayRef<AxisAttr> axes,
                                       ArrayRef<AffineMap> maps,
                                       ArrayRef<Value> operands) {
  llvm::SmallBitVector bound(axes.size());
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        AxisAttr axis = axes[dim.getPosition()];
        if (!axis.isDynamic())
          continue;
        if (!type.isDynamicDim(r))
          return op.emitOpError()
                 << "axis '" << axis.getName() << "' has a dynamic extent "
                 << "but indexes " << describeOperand(op, i) << " dimension #"
                 << r << " of static size " << type.getDimSize(r)
                 << "; make the dimension dynamic (?) or give the axis that "
                    "extent";
        bound.set(dim.getPosition());
        continue;
      }
      for (auto [a, axis] : llvm::enumerate(axes))
        if (axis.isDynamic() && expr.isFunctionOfDim(a))
          return op.emitOpError()
                 << "access '" << str(expr) << "' of " << describeOperand(op, i)
                 << " uses axis '" << axis.getName()
                 << "' of dynamic extent; a dynamic axis may only index a "
                    "dimension alone";
    }
  }
  for (auto [a, axis] : llvm::enumerate(axes))
    if (axis.isDynamic() && !bound.test(a))
      return op.emitOpError() << "axis '" << axis.getName()
                              << "' has a dynamic extent but indexes no "
                                 "dynamic operand dimension alone, so "
                                 "nothing gives its size";
  return success();
}

/// An element of an ext.compute's input `i` read under a branch
/// (if_then_else) only needs to be in bounds where the branch runs: true
/// when the guards prove access `expr` of dimension `r` (of `size`) inside,
/// false when they cannot tell, failure (reported) when they show it
/// leaves.
static FailureOr<bool> insideUnderGuards(ComputeLikeOpInterface op, unsigned i,
                                         unsigned r, AffineExpr expr,
                                         int64_t size) {
  auto compute = dyn_cast<ComputeOp>(op.getOperation());
  if (!compute || i >= op.getInputs().size())
    return false;
  Block &entry = compute.getBody().front();
  Block *read = getReadBlock(entry.getArgument(i));
  if (!read || read == &entry)
    return false;
  std::string witness;
  std::optional<bool> inside = inBoundsUnderGuards(
      compute, getGuards(read, &entry), expr, size, witness);
  if (!inside)
    return false;
  if (*inside)
    return true;
  return op.emitOpError() << "access '" << str(expr) << "' of "
                          << describeOperand(op, i) << " dimension #" << r
                          << " leaves [0, " << size
                          << ") under the branch that reads it, at " << witness
                          << "; guard the read so that it stays inside";
}

/// Shapes: an output's axis spans its dimension exactly (each element is
/// written); an input's access stays inside its dimension: a bare axis no
/// longer than it (a slice from 0), or one the guards keep inside (Concat's
/// first input), or a compound access (convolution's oh + kh) whose range,
/// or guard, keeps it there.
static LogicalResult verifyAccessBounds(ComputeLikeOpInterface op,
                                        ArrayRef<AxisAttr> axes,
                                        ArrayRef<AffineMap> maps,
                                        ArrayRef<Value> operands) {
  // Dynamic axes never reach a compound access (verifyDynamicAxes): 1 keeps
  // the range arithmetic well-defined for the others.
  SmallVector<int64_t> extents = op.getExtents();
  for (int64_t &e : extents)
    if (ShapedType::isDynamic(e))
      e = 1;
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      // A table's entry is checked where it is read, when the compute runs.
      if (type.isDynamicDim(r) || usesSymbol(expr))
        continue;
      int64_t size = type.getDimSize(r);
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        AxisAttr axis = axes[dim.getPosition()];
        bool isInput = i < op.getInputs().size();
        if (axis.getExtent() == size ||
            (isInput && axis.getExtent() < size))
          continue;
        FailureOr<bool> guarded =
            isInput ? insideUnderGuards(op, i, r, expr, size) : false;
        if (failed(guarded))
          return failure();
        if (*guarded)
          continue;
        return op.emitOpError()
               << describeOperand(op, i) << " dimension #" << r
               << " has size " << size << " but axis '" << axis.getName()
               << "' that indexes it has extent " << axis.getExtent()
               << (isInput ? "; an input's axis may be shorter, or longer "
                             "where a guard keeps the read inside"
                           : "; an output's axis spans its dimension");
      }
      FailureOr<bool> guarded = insideUnderGuards(op, i, r, expr, size);
      if (failed(guarded))
        return failure();
      if (*guarded)
        continue;
      std::optional<IndexRange> range = computeAffineRange(expr, extents);
      if (!range)
        return op.emitOpError() << "cannot bound the access '" << str(expr)
                                << "' of " << describeOperand(op, i);
      if (range->lo < 0 || range->hi >= size)
        return op.emitOpError()
               << "access '" << str(expr) << "' of " << describeOperand(op, i)
               << " dimension #" << r << " ranges over [" << range->lo << ", "
               << range->hi << "], outside [0, " << size << ")";
    }
  }
  return success();
}

/// A combiner exactly when there are reduce axes; a custom one with an
/// identity per output and a reducer, a built-in one over numbers.
static LogicalResult verifyCombiner(ComputeLikeOpInterface op,
                                    ArrayRef<AxisAttr> axes) {
  std::optional<CombinerKind> combiner = op.getCombiner();
  if (op.hasReduceAxes() && !combiner) {
    auto reduceAxis =
        llvm::find_if(axes, [](AxisAttr a) { return a.isReduce(); });
    return op.emitOpError() << "has reduce axis '" << reduceAxis->getName()
                            << "' but no combiner";
  }
  if (!op.hasReduceAxes() && combiner)
    return op.emitOpError("has a combiner but no reduce axis to combine over");

  if (combiner && *combiner == CombinerKind::custom) {
    if (!op.getIdentity())
      return op.emitOpError("with combiner(custom) needs an identity, one "
                            "value per output");
    ArrayAttr identity = *op.getIdentity();
    if (identity.size() != op.getOutputs().size())
      return op.emitOpError() << "has " << identity.size()
                              << " identity values but "
                              << op.getOutputs().size() << " outputs";
    for (auto [o, out] : llvm::enumerate(op.getOutputs())) {
      Type elem = cast<MemRefType>(out.getType()).getElementType();
      Type idType = cast<TypedAttr>(identity[o]).getType();
      if (idType != elem)
        return op.emitOpError() << "identity #" << o << " has type " << idType
                                << " but output #" << o
                                << " has element type " << elem;
    }
    if (op.getReducer().empty())
      return op.emitOpError("with combiner(custom) needs a reducer region");
    return success();
  }
  if (op.getIdentity())
    return op.emitOpError("takes an identity only with combiner(custom); the "
                          "built-in combiners have their own");
  if (!op.getReducer().empty())
    return op.emitOpError("takes a reducer region only with combiner(custom)");
  if (!combiner)
    return success();
  for (auto [o, out] : llvm::enumerate(op.getOutputs())) {
    Type elem = cast<MemRefType>(out.getType()).getElementType();
    if (!isCombinableType(*combiner, elem))
      return op.emitOpError()
             << "combiner '" << stringifyCombinerKind(*combiner)
             << "' needs integer or floating-point outputs, output #" << o
             << " has element type " << elem;
  }
  return success();
}

/// Integer elements are signless, as arith takes them: an unsigned byte is
/// an i8 whose operations are the unsigned ones (arith.shrui, extui).
static LogicalResult verifyElementTypes(ComputeLikeOpInterface op,
                                        ArrayRef<Value> operands) {
  for (auto [i, v] : llvm::enumerate(operands)) {
    Type elem = cast<MemRefType>(v.getType()).getElementType();
    auto integer = dyn_cast<IntegerType>(elem);
    if (!integer || integer.isSignless())
      continue;
    return op.emitOpError()
           << describeOperand(op, i) << " has element type " << elem
           << "; elements are signless integers (i" << integer.getWidth()
           << "), whose operations carry the signedness (arith.shrui, "
              "arith.extui, arith.uitofp)";
  }
  return success();
}

static LogicalResult verifyComputeLike(ComputeLikeOpInterface op) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  if (failed(verifyAxisNames(op, axes)))
    return failure();
  if (op.getOutputs().empty())
    return op.emitOpError("needs at least one output");
  SmallVector<AffineMap> maps = op.getMaps();
  SmallVector<Value> operands = llvm::to_vector(op.getInputs());
  llvm::append_range(operands, op.getOutputs());
  if (failed(verifyElementTypes(op, operands)))
    return failure();
  if (maps.size() != operands.size())
    return op.emitOpError() << "expects one indexing map per operand ("
                            << operands.size() << "), got " << maps.size();
  if (auto compute = dyn_cast<ComputeOp>(op.getOperation()))
    if (compute.hasIndirectReads() && failed(verifyIndirectReads(compute)))
      return failure();
  if (failed(verifyMapShapes(op, axes, maps, operands)) ||
      failed(verifyOutputMaps(op, axes, maps)) ||
      failed(verifyDynamicAxes(op, axes, maps, operands)) ||
      failed(verifyAccessBounds(op, axes, maps, operands)))
    return failure();
  return verifyCombiner(op, axes);
}

/// The memref `v` is, through the casts that keep every element where it
/// is (not subviews, whose windows may be disjoint, nor reinterpret_cast).
static Value aliasRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::AssumeAlignmentOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// An output that is also an input is safe only element-wise: each element
/// read by the point that writes it and by no other (the same map, no
/// reduce axes). Otherwise a point reads what another already overwrote,
/// in an order no schedule fixes: refused.
static LogicalResult verifyNoHarmfulAliasing(ComputeOp op) {
  unsigned numInputs = op.getInputs().size();
  for (auto [o, out] : llvm::enumerate(op.getOutputs()))
    for (auto [i, in] : llvm::enumerate(op.getInputs())) {
      if (aliasRoot(in) != aliasRoot(out))
        continue;
      bool sameMap = op.getMaps()[i] == op.getMaps()[numInputs + o];
      if (sameMap && !op.hasReduceAxes())
        continue;
      InFlightDiagnostic d = op.emitOpError()
                             << "output #" << o << " is also input #" << i;
      if (in != out)
        d << " (a cast of the same memref)";
      if (!sameMap)
        return d << ", read at " << op.getIndexingMaps()[i]
                 << " but written at " << op.getIndexingMaps()[numInputs + o]
                 << ": points would read elements other points already "
                    "overwrote; write into a separate buffer";
      return d << " of a reduction: each element is read by every point of "
                  "the reduce axes while the result is written over it; "
                  "write into a separate buffer";
    }
  return success();
}

LogicalResult ComputeOp::verify() {
  if (failed(verifyComputeLike(*this)))
    return failure();
  if (failed(verifyNoHarmfulAliasing(*this)))
    return failure();
  if (ScheduleAttr schedule = getScheduleAttr())
    return ext::detail::verifyScheduleFor(*this, schedule);
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
  // A tile's axes are its tile sizes; the masked points of a partial tile
  // are its `bounds`.
  for (AxisAttr axis : getAxisList())
    if (axis.isDynamic())
      return emitOpError() << "axis '" << axis.getName()
                           << "' has a dynamic extent; a tile compute's axes "
                              "are the static tile sizes";
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
  if (isa_and_nonnull<SliceLayoutAttr>(getLayoutAttr()) && hasReduceAxes())
    return emitOpError("with a slice layout is element-wise (its rows sit in "
                       "several lanes each); reduce with the parent layout's "
                       "fragment reduction instead");
  SmallVector<int64_t> spatialShape, spatialThreads;
  for (auto [a, axis] : llvm::enumerate(getAxisList())) {
    int64_t threads = getThreads()[a];
    // Each thread takes extent / threads points of a spatial axis: a
    // remainder would be points no thread computes (but for a slice
    // layout, whose rows sit in several lanes each). (A reduce axis is
    // strided over its threads up to `bounds`, so any extent works.)
    if (axis.isSpatial() && axis.getExtent() % threads != 0 &&
        !isa_and_nonnull<SliceLayoutAttr>(getLayoutAttr()))
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
  // A reduction of an MMA fragment along its columns: the layout
  // distributes the rows and the columns (the reduce axis) both.
  SmallVector<AxisAttr> axes = getAxisList();
  if (isa_and_nonnull<MmaLayoutAttr>(getLayoutAttr()) && hasReduceAxes() &&
      spatialShape.size() == 1) {
    if (axes.size() != 2 || !axes[0].isSpatial() || !axes[1].isReduce())
      return emitOpError()
             << "with an #ext.mma layout reduces a fragment along its "
                "columns: one spatial axis (the rows), then one reduce axis";
    return getLayoutOrDefault().verifyDistribution(
        [&]() { return emitOpError(); },
        {axes[0].getExtent(), axes[1].getExtent()},
        {getThreads()[0], getThreads()[1]});
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

// Custom directives of the ops' assembly formats.

/// `iters` as an integer or an SSA value (ShapedType::kDynamic in the
/// attribute then), as tile counts are in `tiles`.
static ParseResult
parseDynamicIndex(OpAsmParser &parser,
                  std::optional<OpAsmParser::UnresolvedOperand> &value,
                  IntegerAttr &attr) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult isValue = parser.parseOptionalOperand(operand);
  Builder b(parser.getContext());
  if (isValue.has_value()) {
    if (failed(*isValue))
      return failure();
    value = operand;
    attr = b.getI64IntegerAttr(ShapedType::kDynamic);
    return success();
  }
  int64_t n;
  if (parser.parseInteger(n))
    return failure();
  attr = b.getI64IntegerAttr(n);
  return success();
}

static void printDynamicIndex(OpAsmPrinter &p, Operation *, Value value,
                              IntegerAttr attr) {
  if (value)
    p << value;
  else
    p << attr.getInt();
}

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/IR/ExtOps.cpp.inc"

SmallVector<OperandDim> ext::getAxisDimensions(ComputeLikeOpInterface op,
                                               unsigned a) {
  SmallVector<OperandDim> dims;
  for (auto [i, map] : llvm::enumerate(op.getMaps()))
    for (auto [r, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr); dim && dim.getPosition() == a)
        dims.push_back({unsigned(i), unsigned(r)});
  return dims;
}

