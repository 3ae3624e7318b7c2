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

/// One factor of an OperandProductBody: `value` (under the product's
/// optional `arith.extf`, the element a matrix instruction takes) computed
/// by `ops` (pure, region-free body ops in body order) from the elements of
/// `inputs`, `ext.index` of `axes`, and values defined outside the body.
/// A factor that reads its input directly has no ops.
struct ProductFactor {
  llvm::SmallVector<unsigned> inputs;
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SmallVector<mlir::StringRef> axes;
  mlir::Value value;
};
/// A body `yield (extf?(f(A reads)) * extf?(g(B reads)))` under a `sum`
/// combiner, with f and g reading disjoint inputs: a dequantized weight
/// times an activation, which a matrix instruction computes with each
/// factor built per element in its operand's layout. A ProductBody is the
/// case of two factors without ops.
struct OperandProductBody {
  ProductFactor lhs, rhs;
  bool isPlain() const { return lhs.ops.empty() && rhs.ops.empty(); }
};
std::optional<OperandProductBody>
matchOperandProductBody(ComputeLikeOpInterface op);
/// The element types a matrix instruction takes for `op`'s product: every
/// input's of a ProductBody, the factors' values of another
/// OperandProductBody; none without a product.
std::optional<llvm::SmallVector<mlir::Type>>
getProductOperandTypes(ComputeLikeOpInterface op);

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
