//===- ExampleDialect.td - a third party's dialect ---------*- tablegen -*-===//
//
// A dialect a third party ships as a plugin of ext's tools, built against
// the installed ext, without touching ext's sources.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_EXAMPLE_DIALECT_TD
#define EXT_EXAMPLE_DIALECT_TD

include "mlir/IR/OpBase.td"

def ExtExample_Dialect : Dialect {
  let name = "ext_example";
  let cppNamespace = "::ext_example";
  let summary = "example dialect loaded into ext's tools as a plugin";
  let useDefaultAttributePrinterParser = 1;
  // The serpentine decomposition lowers to arith ops.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // EXT_EXAMPLE_DIALECT_TD
