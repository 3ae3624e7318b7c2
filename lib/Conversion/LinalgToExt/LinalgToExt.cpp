//===- LinalgToExt.cpp - ext-from-linalg ----------------------------------===//
//
// linalg structured ops become ext.computes. The two differ in one point of
// semantics: linalg accumulates into its outputs, ext.compute overwrites
// them (it never reads an output's previous contents). The conversion keeps
// linalg's meaning: it drops an initializing fill only where the fill wrote
// the combiner's identity and nothing touched the output since, and
// otherwise reduces into a fresh buffer and combines that with the output
// in a second, element-wise compute.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

namespace ext {
#define GEN_PASS_DEF_EXTFROMLINALG
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using ext::CombinerKind;

namespace {

/// Marks the computes this pass made until they are numbered.
constexpr StringLiteral kImportedAttr = "ext.from_linalg";

/// The combiner an op applies when it joins an output's previous value
/// with a new one. Integers compare as signed in ext, so only the signed
/// max and min qualify.
std::optional<CombinerKind> combinerOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<CombinerKind>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return CombinerKind::sum; })
      .Case<arith::MulFOp, arith::MulIOp>(
          [](auto) { return CombinerKind::prod; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [](auto) { return CombinerKind::max; })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [](auto) { return CombinerKind::min; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value` is the identity of `kind` (ext's: 0, 1, -inf / the
/// lowest signed integer, +inf / the highest) as `combine` joins it: NaN
/// too for `maxnumf` and `minnumf`, which drop a NaN operand.
bool isIdentity(CombinerKind kind, Attribute value, Operation *combine) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat v = f.getValue();
    if (v.isNaN())
      return isa<arith::MaxNumFOp, arith::MinNumFOp>(combine);
    switch (kind) {
    case CombinerKind::sum: return v.isZero();
    case CombinerKind::prod: return v.isExactlyValue(1.0);
    case CombinerKind::max: return v.isInfinity() && v.isNegative();
    case CombinerKind::min: return v.isInfinity() && !v.isNegative();
    default: return false;
    }
  }
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    APInt v = i.getValue();
    switch (kind) {
    case CombinerKind::sum: return v.isZero();
    case CombinerKind::prod: return v.isOne();
    case CombinerKind::max: return v.isMinSignedValue();
    case CombinerKind::min: return v.isMaxSignedValue();
    default: return false;
    }
  }
  return false;
}

/// The buffer `v` views, through casts and views.
Value aliasRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::SubViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::ReinterpretCastOp,
             memref::AssumeAlignmentOp, memref::TransposeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Two memrefs may share elements when they view the same buffer. Distinct
/// buffers (function arguments included) are assumed apart, as ext.compute's
/// own aliasing check assumes.
bool mayAlias(Value a, Value b) { return aliasRoot(a) == aliasRoot(b); }

/// The constant a `linalg.fill` wrote into `out` before `op`, when nothing
/// between the two may have touched `out`'s elements, with that fill.
std::optional<std::pair<linalg::FillOp, Attribute>>
fillBefore(Operation *op, Value out) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.hasPureBufferSemantics() &&
        fill.getDpsInits()[0] == out) {
      Attribute value;
      if (!matchPattern(fill.getInputs()[0], m_Constant(&value)))
        return std::nullopt;
      return std::make_pair(fill, value);
    }
    if (isMemoryEffectFree(prev))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(prev);
    if (!effects)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &e : instances) {
      Value touched = e.getValue();
      if (!touched || (isa<BaseMemRefType>(touched.getType()) &&
                       mayAlias(touched, out)))
        return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Values of `body` that depend on an output's previous value (its block
/// arguments after the inputs').
DenseSet<Value> outputDependent(Block &body, unsigned numInputs) {
  DenseSet<Value> dependent;
  for (BlockArgument arg : body.getArguments().drop_front(numInputs))
    dependent.insert(arg);
  for (Operation &op : body.without_terminator()) {
    bool uses = false;
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        uses |= dependent.contains(v);
    });
    if (uses)
      dependent.insert(op.getResults().begin(), op.getResults().end());
  }
  return dependent;
}

/// Converts one linalg op; fails with the reason it stays linalg.
class Importer {
public:
  Importer(linalg::LinalgOp op, RewriterBase &rewriter, std::string name,
           DenseSet<Operation *> &erased)
      : op(op), rewriter(rewriter), name(std::move(name)), erased(erased),
        body(*op.getBlock()), numInputs(op.getNumDpsInputs()),
        numOutputs(op.getNumDpsInits()) {}

  /// Replaces the op; returns the reason it cannot, empty on success.
  std::string run();

private:
  std::string analyze();
  ext::ComputeOp create(ArrayRef<Value> outputs, bool reduction);
  void fillBody(ext::ComputeOp compute);
  void fillReducer(ext::ComputeOp compute);
  void combineInto(Value out, Value partial, unsigned j, Location loc);
  SmallVector<Attribute> axes();

  linalg::LinalgOp op;
  RewriterBase &rewriter;
  std::string name;               // the compute's, before numbering
  DenseSet<Operation *> &erased; // fills dropped, not to be converted
  Block &body;
  unsigned numInputs, numOutputs;

  // Filled by analyze().
  SmallVector<Value> memrefInputs;       // the compute's inputs
  SmallVector<AffineMap> inputMaps;      // their maps
  SmallVector<Value> inputArgs;          // the linalg block args they feed
  DenseMap<Value, Attribute> constantArgs; // scalar inputs, rematerialized
  DenseSet<Value> dependent;
  bool hasReduction = false;
  std::optional<CombinerKind> combiner;  // non-custom reductions
  SmallVector<Value> newValues;          // per output: what a point adds
  SmallVector<Operation *> combines;     // per output, non-custom: out <op> v
  bool custom = false;
  SmallVector<Attribute> identities;     // custom: the fills' constants
  SmallVector<linalg::FillOp> fills;     // fills to drop (proven identity)
  bool fillsProven = false;
};

SmallVector<Attribute> Importer::axes() {
  MLIRContext *ctx = op->getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Attribute> result;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    result.push_back(ext::AxisAttr::get(
        ctx, ("d" + Twine(d)).str(),
        linalg::isReductionIterator(it) ? ext::AxisKind::reduce
                                        : ext::AxisKind::spatial,
        ranges[d]));
  return result;
}

std::string Importer::analyze() {
  if (op->getParentOfType<gpu::LaunchOp>() ||
      op->getParentOfType<gpu::GPUFuncOp>() ||
      op->getParentOfType<gpu::GPUModuleOp>())
    return "it is inside a GPU kernel (ext.computes are host-level: a "
           "schedule makes their kernels)";
  if (op.getNumLoops() == 0)
    return "it has no loops (ext.compute needs an axis); it stays host code";
  // Checked before any #ext.axis is built: an axis needs a positive extent.
  // A loop of size 0 runs no iteration, so the op changes nothing; as host
  // loops it still does exactly that.
  for (auto [d, range] : llvm::enumerate(op.getStaticLoopRanges()))
    if (range < 1 && !ShapedType::isDynamic(range))
      return ("loop d" + Twine(d) + " has size " + Twine(range) +
              ", so the op computes nothing (an ext.compute's axes need "
              "positive extents); it stays host code")
          .str();
  if (!op.hasPureBufferSemantics())
    return "it has tensor operands; bufferize first (ext-from-linalg's "
           "'bufferize' option, on by default, does)";
  std::string why;
  body.walk([&](Operation *nested) {
    if (why.empty() && !isa<linalg::IndexOp, linalg::YieldOp>(nested) &&
        !isMemoryEffectFree(nested))
      why = ("its region has memory effects ('" +
             nested->getName().getStringRef() + "')")
                .str();
    for (Value v : nested->getOperands())
      if (why.empty() && !op->getRegion(0).isAncestor(v.getParentRegion()) &&
          !matchPattern(v, m_Constant()))
        why = "its region uses a value defined outside it that is not a "
              "constant";
  });
  if (!why.empty())
    return why;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [i, operand] : llvm::enumerate(op.getDpsInputs())) {
    Value arg = body.getArgument(i);
    if (isa<MemRefType>(operand.getType())) {
      memrefInputs.push_back(operand);
      inputMaps.push_back(maps[i]);
      inputArgs.push_back(arg);
      continue;
    }
    Attribute value;
    if (isa<ShapedType>(operand.getType()) ||
        !matchPattern(operand, m_Constant(&value)))
      return ("input #" + Twine(i) +
              " is a scalar that is not a constant (ext.compute reads "
              "memrefs; store it in a rank-0 memref)")
          .str();
    constantArgs[arg] = value;
  }

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = iterators.size();
  for (auto it : iterators) {
    if (!linalg::isParallelIterator(it) && !linalg::isReductionIterator(it))
      return "it has an iterator that is neither parallel nor a reduction";
    hasReduction |= linalg::isReductionIterator(it);
  }
  unsigned numParallel = llvm::count_if(iterators, linalg::isParallelIterator);
  for (unsigned j = 0; j < numOutputs; ++j) {
    AffineMap map = maps[numInputs + j];
    bool ok = map.isProjectedPermutation() && map.getNumResults() == numParallel;
    if (ok)
      for (AffineExpr e : map.getResults())
        ok &= linalg::isParallelIterator(
            iterators[cast<AffineDimExpr>(e).getPosition()]);
    if (!ok) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "output #" << j << "'s map " << map << " is not a permutation of "
         << "the " << numParallel << " parallel loop(s) of " << numLoops
         << ", so an output element would be written by several points";
      return text;
    }
  }

  dependent = outputDependent(body, numInputs);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!hasReduction) {
    // An element-wise op that reads its output reads it as an input, in
    // place: the same element at the same point.
    for (unsigned j = 0; j < numOutputs; ++j) {
      BlockArgument outArg = body.getArgument(numInputs + j);
      if (outArg.use_empty())
        continue;
      memrefInputs.push_back(op.getDpsInits()[j]);
      inputMaps.push_back(maps[numInputs + j]);
      inputArgs.push_back(outArg);
    }
    return "";
  }

  // Each output `out <op> v`, the same op for all, `out` used there alone.
  for (unsigned j = 0; j < numOutputs; ++j) {
    BlockArgument outArg = body.getArgument(numInputs + j);
    Operation *def = yield.getOperand(j).getDefiningOp();
    std::optional<CombinerKind> kind =
        def && def->getNumOperands() == 2 ? combinerOf(def) : std::nullopt;
    Value v;
    if (kind && outArg.hasOneUse()) {
      if (def->getOperand(0) == outArg)
        v = def->getOperand(1);
      else if (def->getOperand(1) == outArg)
        v = def->getOperand(0);
    }
    if (!v || dependent.contains(v) || (combiner && kind != combiner)) {
      custom = true;
      break;
    }
    combiner = kind;
    newValues.push_back(v);
    combines.push_back(def);
  }

  if (!custom) {
    // Drop the fills that wrote the identity; otherwise combine afterwards.
    fillsProven = true;
    for (auto [j, out] : llvm::enumerate(op.getDpsInits())) {
      auto fill = fillBefore(op, out);
      if (!fill || !isIdentity(*combiner, fill->second, combines[j])) {
        fillsProven = false;
        break;
      }
      fills.push_back(fill->first);
    }
    if (!fillsProven)
      fills.clear();
    return "";
  }

  // One output: only `out <op> v` is a reduction ext can reorder.
  if (numOutputs == 1)
    return "its reduction is not `out <op> value` with a combining op ext "
           "knows (addf/addi, mulf/muli, maximumf/maxnumf/maxsi, "
           "minimumf/minnumf/minsi) and a value independent of the output";
  // A custom reducer: the values the output-dependent ops take from the
  // rest of the region are what a point adds, one per output by type.
  combiner.reset();
  newValues.clear();
  combines.clear();
  SmallVector<Value> frontier;
  for (Operation &nested : body.without_terminator()) {
    if (!llvm::any_of(nested.getResults(),
                      [&](Value r) { return dependent.contains(r); }))
      continue;
    nested.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!dependent.contains(v) && !matchPattern(v, m_Constant()) &&
            (isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner() == &body
                                   : v.getParentBlock() == &body) &&
            !llvm::is_contained(frontier, v))
          frontier.push_back(v);
    });
  }
  for (Value y : yield.getOperands())
    if (!dependent.contains(y))
      return "an output of its reduction does not depend on the output's "
             "previous value";
  newValues.assign(numOutputs, Value());
  for (Value f : frontier) {
    SmallVector<unsigned> sameType;
    for (unsigned j = 0; j < numOutputs; ++j)
      if (body.getArgument(numInputs + j).getType() == f.getType())
        sameType.push_back(j);
    if (sameType.size() != 1 || newValues[sameType[0]])
      return "its reduction is not `out <op> value` per output (sum, prod, "
             "max, min) and its region's values independent of the outputs "
             "do not pair one to one, by type, with the outputs, as a "
             "custom reducer's new values must";
    newValues[sameType[0]] = f;
  }
  if (llvm::is_contained(newValues, Value()))
    return "its custom reduction leaves an output without a new value";
  // Each partial of a custom reduction starts from the identities, so the
  // fills' values may be combined in more than once: right only for a
  // reducer that selects (argmax, argmin), wrong for one that adds.
  for (Operation &nested : body.without_terminator())
    if (llvm::any_of(nested.getResults(),
                     [&](Value r) { return dependent.contains(r); }) &&
        !isa<arith::CmpFOp, arith::CmpIOp, arith::SelectOp, arith::MaximumFOp,
             arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
             arith::MaxSIOp, arith::MinSIOp, arith::AndIOp, arith::OrIOp>(
            nested))
      return ("its multi-output reduction combines with '" +
              nested.getName().getStringRef() +
              "': ext runs a custom reducer only when it selects (compares, "
              "selects, takes a max or min), since each partial starts from "
              "the outputs' fill values")
          .str();
  for (Value out : op.getDpsInits()) {
    auto fill = fillBefore(op, out);
    if (!fill)
      return "its custom reduction's outputs are not filled with constants "
             "just before it (the identities of ext's reducer)";
    fills.push_back(fill->first);
    identities.push_back(fill->second);
  }
  fillsProven = true;
  return "";
}

ext::ComputeOp Importer::create(ArrayRef<Value> outputs, bool reduction) {
  SmallVector<Attribute> maps;
  for (AffineMap m : inputMaps)
    maps.push_back(AffineMapAttr::get(m));
  for (unsigned j = 0; j < numOutputs; ++j)
    maps.push_back(AffineMapAttr::get(op.getIndexingMapsArray()[numInputs + j]));
  ext::CombinerKindAttr combinerAttr;
  ArrayAttr identity;
  if (reduction && custom) {
    combinerAttr =
        ext::CombinerKindAttr::get(op->getContext(), CombinerKind::custom);
    identity = rewriter.getArrayAttr(identities);
  } else if (reduction) {
    combinerAttr = ext::CombinerKindAttr::get(op->getContext(), *combiner);
  }
  auto compute = ext::ComputeOp::create(
      rewriter, op.getLoc(), rewriter.getArrayAttr(axes()), memrefInputs,
      outputs, rewriter.getArrayAttr(maps), combinerAttr, identity,
      ext::ScheduleAttr(), rewriter.getStringAttr(name));
  compute->setAttr(kImportedAttr, rewriter.getUnitAttr());
  fillBody(compute);
  if (reduction && custom)
    fillReducer(compute);
  return compute;
}

/// Clones `ops` (in order) after the insertion point, `linalg.index`
/// becoming `ext.index`, constant scalar inputs rematerialized.
static void cloneInto(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                      IRMapping &mapping) {
  for (Operation *o : ops) {
    if (auto index = dyn_cast<linalg::IndexOp>(o)) {
      mapping.map(index.getResult(),
                  ext::IndexOp::create(rewriter, index.getLoc(),
                                       rewriter.getIndexType(),
                                       ("d" + Twine(index.getDim())).str()));
      continue;
    }
    Operation *clone = rewriter.clone(*o, mapping);
    SmallVector<linalg::IndexOp> indices;
    clone->walk([&](linalg::IndexOp index) { indices.push_back(index); });
    for (linalg::IndexOp index : indices) {
      rewriter.setInsertionPoint(index);
      rewriter.replaceOpWithNewOp<ext::IndexOp>(
          index, rewriter.getIndexType(), ("d" + Twine(index.getDim())).str());
    }
    rewriter.setInsertionPointAfter(clone);
  }
}

void Importer::fillBody(ext::ComputeOp compute) {
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value in : memrefInputs) {
    types.push_back(cast<MemRefType>(in.getType()).getElementType());
    locs.push_back(op.getLoc());
  }
  Block *block = rewriter.createBlock(&compute.getBody(), {}, types, locs);
  IRMapping mapping;
  for (auto [arg, mine] : llvm::zip(inputArgs, block->getArguments()))
    mapping.map(arg, mine);
  for (auto [arg, value] : constantArgs) {
    Operation *c = arith::ConstantOp::materialize(
        rewriter, value, arg.getType(), op.getLoc());
    mapping.map(arg, c->getResult(0));
  }
  SmallVector<Operation *> ops;
  for (Operation &o : body.without_terminator())
    if (!hasReduction || !llvm::any_of(o.getResults(), [&](Value r) {
          return dependent.contains(r);
        }))
      ops.push_back(&o);
  cloneInto(rewriter, ops, mapping);
  SmallVector<Value> yielded;
  if (hasReduction) {
    for (Value v : newValues)
      yielded.push_back(mapping.lookupOrDefault(v));
  } else {
    for (Value v : body.getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(v));
  }
  ext::YieldOp::create(rewriter, op.getLoc(), yielded);
}

void Importer::fillReducer(ext::ComputeOp compute) {
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Type> types;
  for (unsigned j = 0; j < numOutputs; ++j)
    types.push_back(body.getArgument(numInputs + j).getType());
  types.append(SmallVector<Type>(types));
  SmallVector<Location> locs(types.size(), op.getLoc());
  Block *block = rewriter.createBlock(&compute.getReducer(), {}, types, locs);
  IRMapping mapping;
  for (unsigned j = 0; j < numOutputs; ++j) {
    mapping.map(body.getArgument(numInputs + j), block->getArgument(j));
    mapping.map(newValues[j], block->getArgument(numOutputs + j));
  }
  SmallVector<Operation *> ops;
  for (Operation &o : body.without_terminator()) {
    bool isDependent = llvm::any_of(
        o.getResults(), [&](Value r) { return dependent.contains(r); });
    if (isDependent || matchPattern(&o, m_Constant()))
      ops.push_back(&o);
  }
  cloneInto(rewriter, ops, mapping);
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  ext::YieldOp::create(rewriter, op.getLoc(), yielded);
}

/// out = out <combine> partial, element-wise, in place.
void Importer::combineInto(Value out, Value partial, unsigned j, Location loc) {
  MLIRContext *ctx = op->getContext();
  auto type = cast<MemRefType>(out.getType());
  Operation *combine = combines[j];
  Value outArg = body.getArgument(numInputs + j);
  if (type.getRank() == 0) {
    // A scalar: no domain to compute over, so host code does it.
    IRMapping mapping;
    Value old = memref::LoadOp::create(rewriter, loc, out);
    Value add = memref::LoadOp::create(rewriter, loc, partial);
    for (Value operand : combine->getOperands())
      mapping.map(operand, operand == outArg ? old : add);
    Operation *clone = rewriter.clone(*combine, mapping);
    memref::StoreOp::create(rewriter, loc, clone->getResult(0), out);
    return;
  }
  SmallVector<Attribute> axes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    axes.push_back(ext::AxisAttr::get(ctx, ("d" + Twine(d)).str(),
                                      ext::AxisKind::spatial,
                                      type.getDimSize(d)));
  AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
  auto compute = ext::ComputeOp::create(
      rewriter, loc, rewriter.getArrayAttr(axes), ValueRange{out, partial},
      ValueRange{out},
      rewriter.getArrayAttr({AffineMapAttr::get(id), AffineMapAttr::get(id),
                             AffineMapAttr::get(id)}),
      ext::CombinerKindAttr(), ArrayAttr(), ext::ScheduleAttr(),
      rewriter.getStringAttr(name + "_acc"));
  compute->setAttr(kImportedAttr, rewriter.getUnitAttr());
  OpBuilder::InsertionGuard guard(rewriter);
  Type elem = type.getElementType();
  Block *block =
      rewriter.createBlock(&compute.getBody(), {}, {elem, elem}, {loc, loc});
  IRMapping mapping;
  for (Value operand : combine->getOperands())
    mapping.map(operand, operand == outArg ? block->getArgument(0)
                                           : block->getArgument(1));
  Operation *clone = rewriter.clone(*combine, mapping);
  ext::YieldOp::create(rewriter, loc, clone->getResults());
}

std::string Importer::run() {
  std::string why = analyze();
  if (!why.empty())
    return why;
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Value> outputs(op.getDpsInits());
  if (!hasReduction || fillsProven) {
    create(outputs, hasReduction);
    for (linalg::FillOp fill : fills) {
      erased.insert(fill);
      rewriter.eraseOp(fill);
    }
    rewriter.eraseOp(op);
    return "";
  }
  // Reduce into fresh buffers, then combine them with the outputs.
  SmallVector<Value> partials;
  for (Value out : outputs) {
    auto type = cast<MemRefType>(out.getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(memref::DimOp::create(rewriter, loc, out, d));
    partials.push_back(memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(type.getShape(), type.getElementType()), sizes));
  }
  create(partials, /*reduction=*/true);
  for (auto [j, out, partial] : llvm::enumerate(outputs, partials))
    combineInto(out, partial, j, loc);
  for (Value partial : partials)
    memref::DeallocOp::create(rewriter, loc, partial);
  rewriter.eraseOp(op);
  return "";
}

struct ExtFromLinalgPass
    : ext::impl::ExtFromLinalgBase<ExtFromLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(module.getContext());

    // Ops with a decomposition (linalg.softmax) become structured ops.
    SmallVector<linalg::AggregatedOpInterface> aggregated;
    module.walk([&](linalg::AggregatedOpInterface o) { aggregated.push_back(o); });
    for (linalg::AggregatedOpInterface o : aggregated) {
      rewriter.setInsertionPoint(o);
      FailureOr<SmallVector<Value>> parts = o.decomposeOperation(rewriter);
      if (failed(parts)) {
        o->emitRemark("ext-from-linalg: left as it is: it has no "
                      "decomposition into structured ops here");
        continue;
      }
      rewriter.replaceOp(o, *parts);
    }

    if (bufferize && hasTensors(module)) {
      decoupleDestinations(module, rewriter);
      bufferization::OneShotBufferizationOptions options;
      options.bufferizeFunctionBoundaries = true;
      options.setFunctionBoundaryTypeConversion(
          bufferization::LayoutMapOption::IdentityLayoutMap);
      bufferization::BufferizationState state;
      if (failed(bufferization::runOneShotModuleBufferize(module, options,
                                                          state)))
        return signalPassFailure();
    }

    // Last first: converting an op may drop the fill before it, which must
    // then still be a linalg.fill.
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp o) { ops.push_back(o); });
    DenseSet<Operation *> erased;
    for (size_t position = ops.size(); position-- > 0;) {
      linalg::LinalgOp o = ops[position];
      if (erased.contains(o))
        continue;
      Importer importer(o, rewriter, o->getName().stripDialect().str(),
                        erased);
      std::string why = importer.run();
      if (!why.empty())
        o->emitRemark() << "ext-from-linalg: stays linalg: " << why;
    }

    // Names in program order, numbered per function: what a script that
    // schedules a function's computes reads off its linalg ops.
    module.walk([&](FunctionOpInterface function) {
      unsigned next = 0;
      function.walk([&](ext::ComputeOp compute) {
        if (!compute->removeAttr(kImportedAttr))
          return;
        compute.setName(
            (*compute.getName() + "_" + Twine(next++)).str());
      });
    });
  }

  /// Gives each tensor op its own destination where it needs no previous
  /// contents: a fresh tensor.empty for an element-wise op that does not
  /// read its output, a fresh empty (and fill) for one that starts from a
  /// shared fill. Bufferization would otherwise reuse one buffer for values
  /// that are alive at different times (softmax's row max and row sum, its
  /// exponentials and its result), which orders the computes and keeps
  /// ext's fusions from moving them into one kernel.
  static void decoupleDestinations(ModuleOp module, RewriterBase &rewriter) {
    auto freshEmpty = [&](Location loc, Value like) -> Value {
      auto type = cast<RankedTensorType>(like.getType());
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, like);
      return tensor::EmptyOp::create(rewriter, loc, sizes,
                                     type.getElementType());
    };
    module.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || !op.getBlock())
        return;
      rewriter.setInsertionPoint(op);
      bool parallel = op.getNumReductionLoops() == 0;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value value = init.get();
        if (!isa<RankedTensorType>(value.getType()))
          continue;
        BlockArgument arg = op.getMatchingBlockArgument(&init);
        if (parallel && arg.use_empty()) {
          if (!value.getDefiningOp<tensor::EmptyOp>() || !value.hasOneUse())
            rewriter.modifyOpInPlace(op, [&] {
              init.set(freshEmpty(op.getLoc(), value));
            });
          continue;
        }
        auto fill = value.getDefiningOp<linalg::FillOp>();
        if (!fill || !fill.hasPureTensorSemantics() ||
            (value.hasOneUse() && fill.getDpsInits()[0].hasOneUse()))
          continue;
        Value empty = freshEmpty(fill.getLoc(), fill.getDpsInits()[0]);
        Value filled = linalg::FillOp::create(rewriter, fill.getLoc(),
                                              fill.getInputs()[0], empty)
                           .getResult(0);
        rewriter.modifyOpInPlace(op, [&] { init.set(filled); });
      }
    });
  }

  static bool hasTensors(ModuleOp module) {
    WalkResult r = module.walk([](Operation *o) {
      auto isTensor = [](Type t) { return isa<TensorType>(t); };
      if (llvm::any_of(o->getOperandTypes(), isTensor) ||
          llvm::any_of(o->getResultTypes(), isTensor))
        return WalkResult::interrupt();
      if (auto f = dyn_cast<FunctionOpInterface>(o))
        if (llvm::any_of(f.getArgumentTypes(), isTensor) ||
            llvm::any_of(f.getResultTypes(), isTensor))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return r.wasInterrupted();
  }
};

} // namespace
