//===- ExtAttrs.h - ext attributes ------------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTATTRS_H
#define EXT_DIALECT_EXT_IR_EXTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include "ext/Dialect/Ext/IR/ExtEnums.h.inc"
#include "ext/Dialect/Ext/IR/ExtInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "ext/Dialect/Ext/IR/ExtAttrs.h.inc"

namespace ext {
/// Fails, with a diagnostic naming an offset that escapes, unless `swizzle`
/// maps the offsets of a tile of `shape` onto themselves (and its panels,
/// if any, divide the innermost dimension).
llvm::LogicalResult
verifySwizzleOnTile(SwizzleAttr swizzle, llvm::ArrayRef<int64_t> shape,
                    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
} // namespace ext

#endif // EXT_DIALECT_EXT_IR_EXTATTRS_H
