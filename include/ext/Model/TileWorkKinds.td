//===- TileWorkKinds.td - tilework::Kind, generated -------*- tablegen -*-===//
//
// tilework::Kind and its names (stringifyKind, symbolizeKind) generated from
// the cases of TileWorkKindCases.td, for the plain C++ model library.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_MODEL_TILEWORKKINDS_TD
#define EXT_MODEL_TILEWORKKINDS_TD

include "ext/Model/TileWorkKindCases.td"

def TileWork_Kind : I32Enum<"Kind", "a work decomposition TileWork plans", [
  TileWork_DataParallel, TileWork_SplitKSerial, TileWork_SplitKParallel,
  TileWork_StreamK, TileWork_StreamKDP, TileWork_StreamK2Tile
]> {
  let cppNamespace = "::ext::tilework";
}

#endif // EXT_MODEL_TILEWORKKINDS_TD
