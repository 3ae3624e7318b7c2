//===- ExtAttrs.h - ext attributes ------------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTATTRS_H
#define EXT_DIALECT_EXT_IR_EXTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "ext/Dialect/Ext/IR/ExtEnums.h.inc"
#include "ext/Dialect/Ext/IR/ExtInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "ext/Dialect/Ext/IR/ExtAttrs.h.inc"

#endif // EXT_DIALECT_EXT_IR_EXTATTRS_H
