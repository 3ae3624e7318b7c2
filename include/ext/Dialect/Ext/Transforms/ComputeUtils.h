//===- ComputeUtils.h - shared pieces of compute lowerings ------*- C++ -*-===//
//
// Inlining an ext.compute / ext.tile_compute body or reducer, and combining
// accumulators, for every lowering of a compute (loops, threads, fixups).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H
#define EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {

/// Clones the single block of `region` at the rewriter's insertion point
/// with its arguments bound to `args` and every `ext.index` replaced by
/// `axisIndex(name)`; returns the values its ext.yield yields.
llvm::SmallVector<mlir::Value>
inlineComputeRegion(mlir::RewriterBase &b, mlir::Region &region,
                    mlir::ValueRange args,
                    llvm::function_ref<mlir::Value(llvm::StringRef)> axisIndex);

/// Combines accumulators `accs` with new values `values`: the built-in
/// combiner element-wise, or the custom `reducer` region inlined.
llvm::SmallVector<mlir::Value>
combineAccumulators(mlir::RewriterBase &b, mlir::Location loc,
                    CombinerKind kind, mlir::Region &reducer,
                    mlir::ValueRange accs, mlir::ValueRange values);

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H
