//===- StageSelect.h - a pipelined k-loop's choice of stage buffer -*- C++ -*-===//
//
// A pipelined k-loop (`stages = N`) picks the buffer of stage s among an
// input's N shared tiles with a chain of arith.select ops: select(s == 0,
// buf0, select(s == 1, buf1, ... bufN-1)). The lowering tags each select of
// such a chain with kStageSelectAttrName, stating that s is in [0, N) and
// that the chain is exactly that; ext-gpu-reuse-shared-memory, once it has
// placed the tiles at offsets o + s * d of one buffer, replaces the chain by
// one view at that offset (a multiply-add instead of a compare and a select
// per stage in every k-step).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_STAGESELECT_H
#define EXT_DIALECT_EXT_TRANSFORMS_STAGESELECT_H

#include "llvm/ADT/StringRef.h"

namespace ext {

inline constexpr llvm::StringLiteral kStageSelectAttrName = "ext.stage_select";

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_STAGESELECT_H
