//===- ComputeUtils.cpp - shared pieces of compute lowerings --------------===//

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/GuardedReads.h"
#include "ext/Support/GuardedAssert.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace ext {

SmallVector<Value> inlineComputeRegion(RewriterBase &b, Region &region,
                                       ValueRange args,
                                       function_ref<Value(StringRef)> axisIndex) {
  Block &block = region.front();
  IRMapping mapping;
  mapping.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator()) {
    if (auto index = dyn_cast<IndexOp>(op)) {
      mapping.map(index.getResult(), axisIndex(index.getAxis()));
      continue;
    }
    Operation *clone = b.clone(op, mapping);
    // ext.index nested in the regions of a body op (an scf.if, say).
    clone->walk([&](IndexOp nested) {
      b.replaceOp(nested, axisIndex(nested.getAxis()));
    });
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::map_to_vector(yield.getValues(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

SmallVector<Value>
inlineComputeBody(RewriterBase &b, Region &region,
                  function_ref<Value(unsigned)> loadInput,
                  function_ref<Value(StringRef)> axisIndex) {
  Block &block = region.front();
  // Each element is read in its read block (GuardedReads.h): here when that
  // is the entry block; else a placeholder, replaced below by a load at the
  // start of the cloned block that holds its uses (only when its branch
  // runs).
  SmallVector<Value> args;
  SmallVector<std::pair<unsigned, Value>> deferred;
  for (BlockArgument arg : block.getArguments()) {
    if (getReadBlock(arg) == &block) {
      args.push_back(loadInput(arg.getArgNumber()));
      continue;
    }
    Value placeholder =
        UnrealizedConversionCastOp::create(b, arg.getLoc(), arg.getType(),
                                           ValueRange{})
            .getResult(0);
    args.push_back(placeholder);
    deferred.push_back({arg.getArgNumber(), placeholder});
  }
  SmallVector<Value> results = inlineComputeRegion(b, region, args, axisIndex);
  OpBuilder::InsertionGuard guard(b);
  for (auto [i, placeholder] : deferred) {
    if (Block *read = getReadBlock(placeholder)) {
      b.setInsertionPointToStart(read);
      b.replaceAllUsesWith(placeholder, loadInput(i));
    }
    b.eraseOp(placeholder.getDefiningOp());
  }
  return results;
}

SmallVector<Value> combineAccumulators(RewriterBase &b, Location loc,
                                       CombinerKind kind, Region &reducer,
                                       ValueRange accs, ValueRange values) {
  if (kind == CombinerKind::custom) {
    SmallVector<Value> args(accs);
    llvm::append_range(args, values);
    return inlineComputeRegion(b, reducer, args, [](StringRef) -> Value {
      llvm_unreachable("the verifier keeps ext.index out of reducers");
    });
  }
  SmallVector<Value> combined;
  for (auto [acc, v] : llvm::zip(accs, values))
    combined.push_back(buildCombine(b, loc, kind, acc, v));
  return combined;
}

std::optional<std::pair<Value, unsigned>> getExtentSource(ComputeOp op,
                                                          unsigned a) {
  if (!op.getAxis(a).isDynamic())
    return std::nullopt;
  unsigned numInputs = op.getInputs().size();
  for (OperandDim d : getAxisDimensions(op, a)) {
    Value operand = d.operand < numInputs
                        ? op.getInputs()[d.operand]
                        : op.getOutputs()[d.operand - numInputs];
    if (cast<MemRefType>(operand.getType()).isDynamicDim(d.dim))
      return std::make_pair(operand, d.dim);
  }
  return std::nullopt;
}

SmallVector<Value> buildCheckedExtents(RewriterBase &rewriter, Location loc,
                                       ComputeOp op,
                                       SmallVectorImpl<SizeCheck> &checks,
                                       bool materializeStatic) {
  SmallVector<Value> operands = llvm::to_vector(op.getInputs());
  llvm::append_range(operands, op.getOutputs());
  unsigned numInputs = op.getInputs().size();
  SmallVector<Value> extents;
  for (auto [a, axis] : llvm::enumerate(op.getAxisList())) {
    // A dynamic extent is the first dynamic dimension that binds it.
    Value extent;
    // (A copy: a lambda may not capture a structured binding in C++17.)
    auto staticExtent = [&, staticSize = axis.getExtent()]() {
      if (!extent)
        extent = arith::ConstantIndexOp::create(rewriter, loc, staticSize);
      return extent;
    };
    if (!axis.isDynamic() && materializeStatic)
      staticExtent();
    for (OperandDim d : getAxisDimensions(op, a)) {
      Value operand = operands[d.operand];
      if (!cast<MemRefType>(operand.getType()).isDynamicDim(d.dim))
        continue;
      if (!axis.isDynamic())
        staticExtent();
      Value size = memref::DimOp::create(rewriter, loc, operand, d.dim);
      if (!extent) {
        extent = size;
        continue;
      }
      Value same = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq, size, extent);
      std::string what =
          d.operand < numInputs
              ? "input #" + std::to_string(d.operand)
              : "output #" + std::to_string(d.operand - numInputs);
      checks.push_back({same, "ext.compute: dimension #" +
                                  std::to_string(d.dim) + " of " + what +
                                  " is not the extent of axis '" +
                                  axis.getName().str() + "' that indexes it"});
    }
    // The stated divisibility the lowering may have specialized on.
    if (axis.isDynamic() && axis.getMultipleOf() > 1) {
      Value rest = arith::RemUIOp::create(
          rewriter, loc, extent,
          arith::ConstantIndexOp::create(rewriter, loc, axis.getMultipleOf()));
      Value divides = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, rest,
          arith::ConstantIndexOp::create(rewriter, loc, 0));
      checks.push_back({divides, "ext.compute: the extent of axis '" +
                                     axis.getName().str() +
                                     "' is not a multiple of " +
                                     std::to_string(axis.getMultipleOf()) +
                                     ", as its #ext.axis states"});
    }
    extents.push_back(extent);
  }
  return extents;
}

void guardWithSizeChecks(RewriterBase &rewriter, Location loc,
                         ArrayRef<SizeCheck> checks) {
  if (checks.empty())
    return;
  Value all = checks.front().holds;
  for (const SizeCheck &c : checks.drop_front())
    all = arith::AndIOp::create(rewriter, loc, all, c.holds);
  auto ifOp = scf::IfOp::create(rewriter, loc, all, /*withElseRegion=*/true);
  rewriter.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  for (const SizeCheck &c : checks) {
    auto assertOp = cf::AssertOp::create(rewriter, loc, c.holds, c.message);
    assertOp->setAttr(kGuardedAssertAttrName, rewriter.getUnitAttr());
  }
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

} // namespace ext
