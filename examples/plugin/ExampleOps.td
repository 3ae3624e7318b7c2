//===- ExampleOps.td - a third party's dialect -------------*- tablegen -*-===//
//
// A dialect a third party ships as an ext-opt plugin, without touching ext.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_EXAMPLE_OPS_TD
#define EXT_EXAMPLE_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ExtExample_Dialect : Dialect {
  let name = "ext_example";
  let cppNamespace = "::ext_example";
  let summary = "example dialect loaded into ext-opt as a plugin";
}

def ExtExample_NoteOp : Op<ExtExample_Dialect, "note", [Pure]> {
  let summary = "a string note attached to the IR";
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
}

#endif // EXT_EXAMPLE_OPS_TD
