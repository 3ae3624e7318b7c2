//===- ExtTransformOps.h - transform-dialect ops for ext --------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_TRANSFORMOPS_EXTTRANSFORMOPS_H
#define EXT_DIALECT_EXT_TRANSFORMOPS_EXTTRANSFORMOPS_H

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/TransformOps/ExtTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ext {
/// Adds ext's ops (transform.ext.*) to the transform dialect.
void registerTransformDialectExtension(mlir::DialectRegistry &registry);
} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMOPS_EXTTRANSFORMOPS_H
