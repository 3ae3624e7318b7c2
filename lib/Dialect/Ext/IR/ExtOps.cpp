//===- ExtOps.cpp - ext operations ----------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Support/AffineRange.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace ext;

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

SmallVector<AxisAttr> ComputeOp::getAxisList() {
  return llvm::to_vector(getAxes().getAsRange<AxisAttr>());
}

std::optional<unsigned> ComputeOp::getAxisPosition(StringRef name) {
  for (auto [i, axis] : llvm::enumerate(getAxes().getAsRange<AxisAttr>()))
    if (axis.getName() == name)
      return i;
  return std::nullopt;
}

bool ComputeOp::hasReduceAxes() {
  return llvm::any_of(getAxes().getAsRange<AxisAttr>(),
                      [](AxisAttr a) { return a.isReduce(); });
}

SmallVector<int64_t> ComputeOp::getExtents() {
  return llvm::map_to_vector(getAxes().getAsRange<AxisAttr>(),
                             [](AxisAttr a) { return a.getExtent(); });
}

void ComputeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &in : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &in,
                         SideEffects::DefaultResource::get());
  for (OpOperand &out : getOutputsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &out,
                         SideEffects::DefaultResource::get());
}

/// AffineExpr has no diagnostic streaming; print it.
static std::string str(AffineExpr expr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  expr.print(os);
  return s;
}

/// Describes operand `i` for diagnostics: "input #0" or "output #1".
static std::string describeOperand(ComputeOp op, unsigned i) {
  unsigned numInputs = op.getInputs().size();
  if (i < numInputs)
    return "input #" + std::to_string(i);
  return "output #" + std::to_string(i - numInputs);
}

LogicalResult ComputeOp::verify() {
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
  SmallVector<Value> operands = llvm::to_vector(getOperands());
  if (maps.size() != operands.size())
    return emitOpError() << "expects one indexing map per operand ("
                         << operands.size() << "), got " << maps.size();

  SmallVector<int64_t> extents = getExtents();
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = cast<MemRefType>(operands[i].getType());
    if (map.getNumSymbols() != 0)
      return emitOpError() << "indexing map of " << describeOperand(*this, i)
                           << " has symbols; accesses are affine in the axes "
                              "only";
    if (map.getNumDims() != axes.size())
      return emitOpError() << "indexing map of " << describeOperand(*this, i)
                           << " has " << map.getNumDims()
                           << " dimensions, expected one per axis ("
                           << axes.size() << ")";
    if (map.getNumResults() != type.getRank())
      return emitOpError() << "indexing map of " << describeOperand(*this, i)
                           << " has " << map.getNumResults()
                           << " results but the operand " << type
                           << " has rank " << type.getRank();
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
                 << describeOperand(*this, i) << " dimension #" << r
                 << " has size " << size << " but axis '" << axis.getName()
                 << "' that indexes it has extent " << axis.getExtent();
        continue;
      }
      std::optional<IndexRange> range = computeAffineRange(expr, extents);
      if (!range)
        return emitOpError() << "cannot bound the access '" << str(expr) << "' of "
                             << describeOperand(*this, i);
      if (range->lo < 0 || range->hi >= size)
        return emitOpError() << "access '" << str(expr) << "' of "
                             << describeOperand(*this, i) << " dimension #"
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

/// Checks that `block` ends in an ext.yield of values of `types`.
static LogicalResult verifyYield(ComputeOp op, Block &block, TypeRange types,
                                 StringRef regionName) {
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op.emitOpError() << regionName << " must end in ext.yield";
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

LogicalResult ComputeOp::verifyRegions() {
  SmallVector<Type> outElems = llvm::map_to_vector(getOutputs(), [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  });

  Block &body = getBodyBlock();
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
  if (failed(verifyYield(*this, body, outElems, "body")) ||
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
  if (failed(verifyYield(*this, reducer, outElems, "reducer")) ||
      failed(verifyNoMemoryEffects(getReducer())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// IndexOp
//===----------------------------------------------------------------------===//

LogicalResult IndexOp::verify() {
  auto compute = (*this)->getParentOfType<ComputeOp>();
  if (!compute)
    return emitOpError("must be inside the body of an ext.compute");
  if (!compute.getBody().isAncestor((*this)->getParentRegion()))
    return emitOpError("is only valid in the body of an ext.compute, not in "
                       "its reducer");
  if (!compute.getAxisPosition(getAxis())) {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleaveComma(compute.getAxisList(), os,
                          [&](AxisAttr a) { os << a.getName(); });
    return emitOpError() << "names axis '" << getAxis()
                         << "', which the enclosing ext.compute does not "
                            "have (its axes: "
                         << names << ")";
  }
  return success();
}

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/IR/ExtOps.cpp.inc"
