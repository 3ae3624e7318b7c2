//===- ExampleDialect.h - the plugin's dialect, op and attribute -*- C++ -*-===//

#ifndef EXT_EXAMPLE_DIALECT_H
#define EXT_EXAMPLE_DIALECT_H

#include "ext/Dialect/Ext/IR/ExtInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ExampleDialect.h.inc"

#define GET_OP_CLASSES
#include "ExampleOps.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ExampleAttrs.h.inc"

namespace ext_example {
/// Registers the plugin's passes (ExamplePasses.td).
void registerExamplePasses();
} // namespace ext_example

#endif // EXT_EXAMPLE_DIALECT_H
