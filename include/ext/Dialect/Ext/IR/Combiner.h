//===- Combiner.h - built-in reduction combiners ----------------*- C++ -*-===//
//
// The identities and combining operations of ext's built-in combiners (sum,
// prod, max, min). Shared by every lowering of a reduce axis: sequential
// loops, thread-level tree reductions and split-reduction fixups.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_COMBINER_H
#define EXT_DIALECT_EXT_IR_COMBINER_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace ext {

/// True if the built-in combiner `kind` is defined on `type` (integers,
/// index and floats; integers are signed).
bool isCombinableType(CombinerKind kind, mlir::Type type);

/// The identity of a built-in combiner on `type`: 0 for sum, 1 for prod,
/// the lowest value for max (-inf for floats) and the highest for min.
/// Returns a null attribute for `custom` or an unsupported type.
mlir::TypedAttr getCombinerIdentity(CombinerKind kind, mlir::Type type);

/// Emits `acc <kind> value` for a built-in combiner. Float max/min propagate
/// NaN (arith.maximumf / arith.minimumf).
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc,
                         CombinerKind kind, mlir::Value acc,
                         mlir::Value value);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_COMBINER_H
