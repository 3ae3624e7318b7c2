//===- ExtAttrs.td - ext attributes and enums --------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTATTRS_TD
#define EXT_DIALECT_EXT_IR_EXTATTRS_TD

include "ext/Dialect/Ext/IR/ExtDialect.td"
include "mlir/IR/EnumAttr.td"

def Ext_AxisKind : I32EnumAttr<"AxisKind", "kind of an iteration axis", [
    I32EnumAttrCase<"spatial", 0>,
    I32EnumAttrCase<"reduce", 1>
  ]> {
  let cppNamespace = "::ext";
  let genSpecializedAttr = 0;
}

def Ext_CombinerKind : I32EnumAttr<"CombinerKind",
    "how values along the reduce axes are combined", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"custom", 4>
  ]> {
  let cppNamespace = "::ext";
}

def Ext_AxisAttr : Ext_Attr<"Axis", "axis"> {
  let summary = "a named iteration axis: spatial or reduce, with its extent";
  let description = [{
    One axis of an `ext.compute` iteration domain. A `spatial` axis indexes
    the outputs; a `reduce` axis (TVM's `te.reduce_axis`) is combined over
    with the compute's combiner and does not appear in any output access.
    The axis iterates over `[0, extent)`.

    ```mlir
    #ext.axis<"k", reduce, 512>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"axis name, unique within a compute">:$name,
    EnumParameter<Ext_AxisKind>:$kind,
    "int64_t":$extent
  );
  let assemblyFormat = "`<` $name `,` $kind `,` $extent `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isReduce() const { return getKind() == ::ext::AxisKind::reduce; }
    bool isSpatial() const { return getKind() == ::ext::AxisKind::spatial; }
  }];
}

#endif // EXT_DIALECT_EXT_IR_EXTATTRS_TD
