//===- ExtOps.h - ext operations --------------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTOPS_H
#define EXT_DIALECT_EXT_IR_EXTOPS_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "ext/Dialect/Ext/IR/ExtOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/IR/ExtOps.h.inc"

namespace ext {
/// A body `yield (f(a) * f(b))` under a `sum` combiner, with `f` the identity
/// or `arith.extf`, `a` and `b` the block arguments of two inputs: what a
/// matrix instruction computes (C += A * B).
struct ProductBody {
  unsigned lhsInput = 0, rhsInput = 1;
};
/// The product structure of `op`'s body, if it has one (see ProductBody).
std::optional<ProductBody> matchProductBody(ComputeLikeOpInterface op);

/// An operand dimension: operand number (inputs first) and dimension.
struct OperandDim {
  unsigned operand, dim;
};
/// The operand dimensions that axis `a` of `op` indexes alone (an access
/// result that is exactly the axis): what binds a dynamic extent.
llvm::SmallVector<OperandDim> getAxisDimensions(ComputeLikeOpInterface op,
                                                unsigned a);
} // namespace ext

#endif // EXT_DIALECT_EXT_IR_EXTOPS_H
