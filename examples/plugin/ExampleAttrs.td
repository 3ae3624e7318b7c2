//===- ExampleAttrs.td - a third party's tile decomposition -*- tablegen -*-===//
//
// A decomposition ext does not have, added from outside: the attribute
// implements ext's TileDecompositionAttrInterface (from the installed .td),
// so `#ext.schedule<..., decomposition = #ext_example.serpentine<run = 4>>`
// lowers through ext's own passes.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_EXAMPLE_ATTRS_TD
#define EXT_EXAMPLE_ATTRS_TD

include "ExampleDialect.td"
include "ext/Dialect/Ext/IR/ExtInterfaces.td"
include "mlir/IR/AttrTypeBase.td"

def ExtExample_SerpentineAttr : AttrDef<ExtExample_Dialect, "Serpentine", [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface>]> {
  let mnemonic = "serpentine";
  let summary = "data-parallel tiles, walked back and forth in runs";
  let description = [{
    One CTA per output tile, every reduce iteration, like
    `#ext.data_parallel`, but another tile -> CTA mapping: the linear tile
    order (after the schedule's raster and swizzle) is cut into runs of
    `run` tiles, and every second run is walked backwards (boustrophedon).
    With `run` equal to the tiles of a row, consecutive CTAs stay next to
    each other at the end of each row, so the B tiles they read are still
    in L2 when the next row starts. The last run may be shorter.

    ```mlir
    #ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
                  decomposition = #ext_example.serpentine<run = 3>>
    ```
  }];
  let parameters = (ins "int64_t":$run);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // EXT_EXAMPLE_ATTRS_TD
