//===- ExtInterfaces.td - ext interfaces -------------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTINTERFACES_TD
#define EXT_DIALECT_EXT_IR_EXTINTERFACES_TD

include "mlir/IR/OpBase.td"

def TileDecompositionAttrInterface
    : AttrInterface<"TileDecompositionAttrInterface"> {
  let cppNamespace = "::ext";
  let description = [{
    A tile decomposition decides which CTA computes which *work unit*: an
    output tile and a range `[k_begin, k_end)` of its reduce iterations.
    Data-parallel gives each CTA one whole tile; split-K and Stream-K split
    a tile's iterations over several CTAs and combine the partial results.

    `ext-lower-decomposition` asks the attribute for the grid size, then
    hands it a `TileWorkEmitter` that emits the pieces of a unit (the main
    loop over a k range, the epilogue that writes a finished tile, and the
    helpers a fixup needs). The attribute emits the control flow that maps
    the block id to units around them. A new decomposition, ext's own or a
    plugin's, is a new attribute implementing this interface: the lowering
    does not change.
  }];
  let methods = [
    InterfaceMethod<[{
        Number of CTAs to launch for `numTiles` output tiles of
        `itersPerTile` reduce iterations each.
      }], "int64_t", "getNumBlocks",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile)>,
    InterfaceMethod<[{
        True if one tile's reduce iterations may be split over several
        CTAs (so partial tiles need a fixup).
      }], "bool", "splitsReduction", (ins)>,
    InterfaceMethod<[{
        Checks the decomposition against a problem; reports with
        `emitError` and fails if it cannot decompose it.
      }], "::llvm::LogicalResult", "verifyProblem",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "int64_t":$numTiles, "int64_t":$itersPerTile)>,
    InterfaceMethod<[{
        Emits, at the builder's insertion point inside the launch, the code
        that maps `blockId` to its work units and runs each through
        `emitter`.
      }], "::llvm::LogicalResult", "emitWorkUnits",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$blockId, "int64_t":$numTiles,
           "int64_t":$itersPerTile, "::ext::TileWorkEmitter &":$emitter)>
  ];
}

#endif // EXT_DIALECT_EXT_IR_EXTINTERFACES_TD
