//===- IndexConstant.h - index constants for ext's builders -----*- C++ -*-===//
//
// One spelling for the `arith.constant N : index` that every lowering of
// ext builds by the dozen; header-only so that any ext library can use it.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_INDEXCONSTANT_H
#define EXT_SUPPORT_INDEXCONSTANT_H

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace ext {

/// An `arith.constant` of index type with value `v`.
inline mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t v) {
  return mlir::arith::ConstantIndexOp::create(b, loc, v);
}

} // namespace ext

#endif // EXT_SUPPORT_INDEXCONSTANT_H
