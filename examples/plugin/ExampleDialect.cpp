//===- ExampleDialect.cpp - the plugin's dialect, op and attribute --------===//

#include "ExampleDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "ExampleDialect.cpp.inc"

#define GET_OP_CLASSES
#include "ExampleOps.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ExampleAttrs.cpp.inc"

void ext_example::ExtExampleDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ExampleOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ExampleAttrs.cpp.inc"
      >();
}
