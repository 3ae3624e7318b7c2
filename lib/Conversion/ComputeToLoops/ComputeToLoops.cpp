//===- ComputeToLoops.cpp - ext.compute to scf loops ----------------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/IndirectReads.h"
#include "ext/Support/GuardedAssert.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Conversion/Passes.h"
#include "ext/Conversion/ComputeToLoops/ComputeToLoops.h"
#include "ext/Conversion/ComputeToLoops/SmallFloats.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ext {
#define GEN_PASS_DEF_EXTCOMPUTETOLOOPS
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// Indices into an operand for the current domain point: a dimension result
/// is the axis' induction variable itself, anything else an affine.apply.
SmallVector<Value> buildAccessIndices(OpBuilder &b, Location loc,
                                      AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    AffineMap single = AffineMap::get(map.getNumDims(), 0, expr);
    indices.push_back(affine::AffineApplyOp::create(b, loc, single, ivs));
  }
  return indices;
}

/// Indices into input `i`, whose map may read table entries (symbols bound
/// by `indirect`): each entry is loaded, made an index, and checked to keep
/// the access inside the dimension it indexes. A failed check reports to
/// the caller (a guarded assert) and the read goes to index 0 instead, so
/// that nothing outside the input is touched either way.
SmallVector<Value> buildInputIndices(OpBuilder &b, Location loc, ComputeOp op,
                                     unsigned i, ValueRange ivs) {
  AffineMap map = op.getInputMap(i);
  if (map.getNumSymbols() == 0)
    return buildAccessIndices(b, loc, map, ivs);
  SmallVector<unsigned> tables = op.getIndirectTables(i);
  SmallVector<Value> operands(ivs);
  for (unsigned table : tables) {
    Value entry = memref::LoadOp::create(
        b, loc, op.getInputs()[table],
        buildAccessIndices(b, loc, op.getInputMap(table), ivs));
    if (!entry.getType().isIndex())
      entry = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
    operands.push_back(entry);
  }
  Value input = op.getInputs()[i];
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> indices;
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    if (!usesSymbol(expr)) {
      indices.push_back(buildAccessIndices(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs)[0]);
      continue;
    }
    AffineMap single =
        AffineMap::get(map.getNumDims(), map.getNumSymbols(), expr);
    Value index = affine::AffineApplyOp::create(b, loc, single, operands);
    Value size = memref::DimOp::create(b, loc, input, r);
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, size));
    std::string names;
    for (unsigned s = 0; s < tables.size(); ++s)
      if (expr.isFunctionOfSymbol(s))
        names += (names.empty() ? "" : ", ") + describeInput(op, tables[s]);
    auto type = cast<MemRefType>(input.getType());
    std::string message =
        "ext.compute" +
        (op.getName() ? " '" + op.getName()->str() + "'" : std::string()) +
        ": an entry of table " + names + " indexes dimension #" +
        std::to_string(r) + " of " + describeInput(op, i) + " outside [0, " +
        (type.isDynamicDim(r) ? std::string("its size")
                              : std::to_string(type.getDimSize(r))) +
        ")";
    auto check = cf::AssertOp::create(b, loc, inside, message);
    check->setAttr(kGuardedAssertAttrName, b.getUnitAttr());
    indices.push_back(arith::SelectOp::create(b, loc, inside, index, zero));
  }
  return indices;
}

} // namespace

LogicalResult ext::lowerComputeToLoops(RewriterBase &rewriter, ComputeOp op) {
  OpBuilder::InsertionGuard atOp(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<AxisAttr> axes = op.getAxisList();
  unsigned numOutputs = op.getOutputs().size();
  SmallVector<Value> ivs(axes.size());

  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<SizeCheck> checks;
  SmallVector<Value> extents = buildCheckedExtents(rewriter, loc, op, checks);
  guardWithSizeChecks(rewriter, loc, checks);

  // Spatial loops, outermost, in axis order.
  OpBuilder::InsertionGuard guard(rewriter);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (!axis.isSpatial())
      continue;
    auto loop = scf::ForOp::create(rewriter, loc, zero, extents[i], one);
    ivs[i] = loop.getInductionVar();
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }

  // One point of the domain: load the inputs and inline the body.
  auto emitPoint = [&]() {
    // ext.index becomes the axis' induction variable; an input is read
    // where the body reads it (under its branch, for a guarded read).
    return inlineComputeBody(
        rewriter, op.getBody(),
        [&](unsigned i) -> Value {
          return memref::LoadOp::create(
              rewriter, loc, op.getInputs()[i],
              buildInputIndices(rewriter, loc, op, i, ivs));
        },
        [&](StringRef name) { return ivs[*op.getAxisPosition(name)]; });
  };

  SmallVector<Value> results;
  if (!op.hasReduceAxes()) {
    results = emitPoint();
  } else {
    SmallVector<Value> inits;
    for (unsigned o = 0; o < numOutputs; ++o) {
      Type elem =
          cast<MemRefType>(op.getOutputs()[o].getType()).getElementType();
      TypedAttr id =
          op.hasCustomReducer()
              ? cast<TypedAttr>((*op.getIdentity())[o])
              : getCombinerIdentity(*op.getCombiner(), elem);
      inits.push_back(arith::ConstantOp::create(rewriter, loc, elem, id));
    }

    // Reduce loops, innermost, carrying the accumulators.
    SmallVector<scf::ForOp> reduceLoops;
    SmallVector<Value> accs = inits;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (!axis.isReduce())
        continue;
      auto loop =
          scf::ForOp::create(rewriter, loc, zero, extents[i], one, accs);
      if (!reduceLoops.empty())
        scf::YieldOp::create(rewriter, loc, loop.getResults());
      reduceLoops.push_back(loop);
      ivs[i] = loop.getInductionVar();
      accs = llvm::to_vector_of<Value>(loop.getRegionIterArgs());
      rewriter.setInsertionPointToStart(loop.getBody());
    }

    SmallVector<Value> values = emitPoint();
    SmallVector<Value> combined = combineAccumulators(
        rewriter, loc, *op.getCombiner(), op.getReducer(), accs, values);
    scf::YieldOp::create(rewriter, loc, combined);
    rewriter.setInsertionPointAfter(reduceLoops.front());
    results = llvm::to_vector_of<Value>(reduceLoops.front().getResults());
  }

  for (auto [o, out] : llvm::enumerate(op.getOutputs()))
    memref::StoreOp::create(
        rewriter, loc, results[o], out,
        buildAccessIndices(rewriter, loc, op.getOutputMap(o), ivs));

  rewriter.eraseOp(op);
  return success();
}

namespace {

struct LowerComputeToLoops : OpRewritePattern<ComputeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ComputeOp op,
                                PatternRewriter &rewriter) const override {
    return lowerComputeToLoops(rewriter, op);
  }
};

struct ExtComputeToLoopsPass
    : ext::impl::ExtComputeToLoopsBase<ExtComputeToLoopsPass> {
  using ExtComputeToLoopsBase::ExtComputeToLoopsBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateComputeToLoopsPatterns(patterns);
    // The bodies' f8/f4 conversions, which LLVM has no types for, become
    // integer code (on every path: the kernels' bodies are here too).
    populateExpandSmallFloatPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError("ext-compute-to-loops: the rewrite did not "
                                "converge");
      return signalPassFailure();
    }
    if (!rejectTileLevel)
      return;
    Dialect *ext = getContext().getLoadedDialect<ext::ExtDialect>();
    WalkResult result =
        getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (op->getDialect() != ext)
            return WalkResult::advance();
          op->emitOpError("is tile-level IR, which has no CPU lowering; "
                          "lower it through ext-kernel-to-gpu and the "
                          "GPU passes");
          return WalkResult::interrupt();
        });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void ext::populateComputeToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerComputeToLoops>(patterns.getContext());
}
