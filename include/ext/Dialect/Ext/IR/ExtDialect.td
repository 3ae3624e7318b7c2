//===- ExtDialect.td - the ext dialect ---------------------*- tablegen -*-===//
//
// TVM-style scheduling for MLIR: computations over named spatial and reduce
// axes (the algorithm level), scheduled into GPU kernels.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_EXTDIALECT_TD
#define EXT_DIALECT_EXT_IR_EXTDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Ext_Dialect : Dialect {
  let name = "ext";
  let cppNamespace = "::ext";
  let summary = "TVM-style computations and schedules for GPU kernels";
  let description = [{
    The `ext` dialect describes a computation the way TVM's tensor
    expressions do: an iteration domain of named axes, each either *spatial*
    (it indexes the output) or *reduce* (it is combined over and disappears
    from the output, TVM's `te.reduce_axis`), operands read and written
    through affine maps of those axes, a scalar body, and a combiner for the
    reduce axes.

    The algorithm level is `ext.compute`. It lowers to `scf` loops with
    `ext-compute-to-loops` (the reference semantics, used for CPU execution).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

class Ext_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ext_Dialect, mnemonic, traits>;

class Ext_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Ext_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // EXT_DIALECT_EXT_IR_EXTDIALECT_TD
