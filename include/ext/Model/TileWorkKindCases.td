//===- TileWorkKindCases.td - the decompositions' names, once -*- tablegen -*-===//
//
// The one registry of the work decompositions TileWork plans: each case's
// C++ name (tilework::Kind, generated from TileWorkKinds.td) and its name
// in the IR, which the dialect's decomposition attributes take as their
// mnemonic (ExtAttrs.td). Adding a decomposition adds a case here, its
// attribute there, and its arithmetic in TileWork.cpp, whose switches over
// Kind the compiler then checks for the missing case.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_MODEL_TILEWORKKINDCASES_TD
#define EXT_MODEL_TILEWORKKINDCASES_TD

include "mlir/IR/EnumAttr.td"

def TileWork_DataParallel : I32EnumCase<"DataParallel", 0, "data_parallel">;
// Serial split-K (slices fixed up in place) is `split_k`; its parallel
// form (a reduction launch) is `split_k` with `parallel`.
def TileWork_SplitKSerial : I32EnumCase<"SplitKSerial", 1, "split_k">;
def TileWork_SplitKParallel
    : I32EnumCase<"SplitKParallel", 2, "split_k_parallel">;
def TileWork_StreamK : I32EnumCase<"StreamK", 3, "stream_k">;
def TileWork_StreamKDP : I32EnumCase<"StreamKDP", 4, "stream_k_dp">;
def TileWork_StreamK2Tile : I32EnumCase<"StreamK2Tile", 5, "stream_k_2tile">;

#endif // EXT_MODEL_TILEWORKKINDCASES_TD
