//===- ComputeUtils.h - shared pieces of compute lowerings ------*- C++ -*-===//
//
// Inlining an ext.compute / ext.tile_compute body or reducer, combining
// accumulators, and the run-time checks of operand sizes, for every lowering
// of a compute (loops, threads, fixups, kernels).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H
#define EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
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

/// Inlines a compute's body as inlineComputeRegion does, reading input i's
/// element through `loadInput(i)` (at the rewriter's insertion point) where
/// the body reads it (GuardedReads.h): before the body, or inside the
/// branch that alone uses it, so a guarded read runs only when its guard
/// holds; an unused input is not read.
llvm::SmallVector<mlir::Value>
inlineComputeBody(mlir::RewriterBase &b, mlir::Region &region,
                  llvm::function_ref<mlir::Value(unsigned)> loadInput,
                  llvm::function_ref<mlir::Value(llvm::StringRef)> axisIndex);

/// Combines accumulators `accs` with new values `values`: the built-in
/// combiner element-wise, or the custom `reducer` region inlined.
llvm::SmallVector<mlir::Value>
combineAccumulators(mlir::RewriterBase &b, mlir::Location loc,
                    CombinerKind kind, mlir::Region &reducer,
                    mlir::ValueRange accs, mlir::ValueRange values);

/// A run-time check of an operand's size: the condition and what its
/// failure means.
struct SizeCheck {
  mlir::Value holds;
  std::string message;
};

/// The operand (inputs, then outputs) and dimension a dynamic extent is read
/// from: the first dynamic operand dimension that axis `a` indexes alone (the
/// verifier guarantees one for an extent of `?`); none for a static axis.
std::optional<std::pair<mlir::Value, unsigned>>
getExtentSource(ComputeOp op, unsigned a);

/// The extent of every axis of `op` as an index value (for `?`, the size of
/// the first dynamic dimension that binds it), and into `checks` that every
/// other dynamic operand dimension an axis indexes alone has that size (the
/// verifier checked the static ones): operands that disagree would be read
/// or written out of bounds; and that a dynamic extent is a multiple of its
/// axis' `multiple_of`. Without `materializeStatic`, a static extent no check
/// needs is left null (a caller that wants the checks only).
llvm::SmallVector<mlir::Value>
buildCheckedExtents(mlir::RewriterBase &rewriter, mlir::Location loc,
                    ComputeOp op, llvm::SmallVectorImpl<SizeCheck> &checks,
                    bool materializeStatic = true);

/// With checks, opens `scf.if` (all hold) and leaves the insertion point in
/// its then block; the else block asserts each check, marked `ext.guarded`
/// (ext/Support/GuardedAssert.h): the work is skipped, so a runtime may
/// report the failure to the caller and go on.
void guardWithSizeChecks(mlir::RewriterBase &rewriter, mlir::Location loc,
                         llvm::ArrayRef<SizeCheck> checks);

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_COMPUTEUTILS_H
