//===- ExpressionBuilder.h - ext.compute bodies from Python expressions ---===//
//
// A compute's body (and a custom reducer) arrives from the Python layer as
// expression nodes in dependence order, each (op, dtype, [operand ids],
// attr, (file, line)): tensor elements, axes, constants, arithmetic, shifts
// and bitwise operations, casts and bit casts, comparisons, selects, math
// functions and constant lookup tables. This emits them as arith/math/scf
// ops at the insertion point, each located at its Python line, and checks
// every type on the way: bad input is a BuildError, never invalid IR.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_PYTHON_EXPRESSIONBUILDER_H
#define EXT_PYTHON_EXPRESSIONBUILDER_H

#include "mlir/IR/Builders.h"

#include <pybind11/pybind11.h>

namespace ext::python {

/// Emits `nodes` over the block `arguments` (input nodes name them by
/// position) and returns the values of the nodes `yields` names; `what`
/// names the region in messages.
llvm::SmallVector<mlir::Value>
buildExpressions(mlir::OpBuilder &b, llvm::ArrayRef<mlir::Value> arguments,
                 const pybind11::list &nodes, const pybind11::list &yields,
                 llvm::StringRef what);

} // namespace ext::python

#endif // EXT_PYTHON_EXPRESSIONBUILDER_H
