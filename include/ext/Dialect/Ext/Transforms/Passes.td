//===- Passes.td - ext transformation passes ---------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD
#define EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtLowerToLoops : Pass<"ext-lower-to-loops"> {
  let summary = "Lower ext.compute to scf loops (the reference semantics)";
  let description = [{
    Rewrites every `ext.compute` into a nest of `scf.for` loops: one loop per
    spatial axis, in axis order, outermost; inside it, the combiner's identity
    initialises one accumulator per output and one loop per reduce axis (in
    axis order) carries the accumulators as `iter_args`. Each iteration loads
    one element of every input through its indexing map (`affine.apply` for
    compound accesses), inlines the body, and combines its values into the
    accumulators (a built-in combiner's arith op, or the inlined `reducer`).
    After the reduce loops the accumulators are stored through the output
    maps. A compute without reduce axes stores the body's values directly.

    This is the definition every other lowering of `ext.compute` is checked
    against.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD
