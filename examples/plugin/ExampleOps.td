//===- ExampleOps.td - a third party's op -------------------*- tablegen -*-===//

#ifndef EXT_EXAMPLE_OPS_TD
#define EXT_EXAMPLE_OPS_TD

include "ExampleDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ExtExample_NoteOp : Op<ExtExample_Dialect, "note", [Pure]> {
  let summary = "a string note attached to the IR";
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
}

#endif // EXT_EXAMPLE_OPS_TD
