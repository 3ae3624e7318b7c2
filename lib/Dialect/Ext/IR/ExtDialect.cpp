//===- ExtDialect.cpp - the ext dialect -----------------------------------===//

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ext;

#include "ext/Dialect/Ext/IR/ExtOpsDialect.cpp.inc"
#include "ext/Dialect/Ext/IR/ExtEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ext/Dialect/Ext/IR/ExtAttrs.cpp.inc"

void ExtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ext/Dialect/Ext/IR/ExtOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ext/Dialect/Ext/IR/ExtAttrs.cpp.inc"
      >();
}

LogicalResult AxisAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, AxisKind kind, int64_t extent) {
  if (name.empty())
    return emitError() << "axis name must not be empty";
  if (extent < 1)
    return emitError() << "axis '" << name << "' has extent " << extent
                       << "; extents must be positive";
  return success();
}
