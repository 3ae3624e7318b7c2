//===- ComputeUtils.cpp - shared pieces of compute lowerings --------------===//

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

} // namespace ext
