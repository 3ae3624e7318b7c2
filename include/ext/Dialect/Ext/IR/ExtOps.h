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

#include "ext/Dialect/Ext/IR/ExtOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/IR/ExtOps.h.inc"

#endif // EXT_DIALECT_EXT_IR_EXTOPS_H
