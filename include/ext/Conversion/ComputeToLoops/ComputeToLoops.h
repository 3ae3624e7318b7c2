//===- ComputeToLoops.h - ext.compute as loops ------------------*- C++ -*-===//
//
// ext-compute-to-loops one op at a time: the reference semantics of an
// ext.compute (a nest of scf.for loops), for transform ops, the bindings and
// plugins. The pass (ext/Conversion/Passes.td) walks the IR and calls these.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_CONVERSION_COMPUTETOLOOPS_COMPUTETOLOOPS_H
#define EXT_CONVERSION_COMPUTETOLOOPS_COMPUTETOLOOPS_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {

/// ext-compute-to-loops on one op: rewrites `op` into a nest of scf.for loops
/// (the reference semantics) at its place and erases it.
mlir::LogicalResult lowerComputeToLoops(mlir::RewriterBase &rewriter,
                                        ComputeOp op);

/// Patterns rewriting ext.compute into scf loops (ext-compute-to-loops).
void populateComputeToLoopsPatterns(mlir::RewritePatternSet &patterns);

} // namespace ext

#endif // EXT_CONVERSION_COMPUTETOLOOPS_COMPUTETOLOOPS_H
