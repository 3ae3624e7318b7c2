//===- WarpgroupMmaAccumulation.h - the wgmma strategy ---------*- C++ -*-===//
//
// MmaAccumulation.cpp hands #ext.mma<wgmma_k16> tile computes it matched as
// C += A * B to WarpgroupMmaAccumulation.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_WARPGROUPMMAACCUMULATION_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_WARPGROUPMMAACCUMULATION_H

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

namespace ext {

/// A tile compute C (M x N) += A * B matched for wgmma.
struct WarpgroupProblem {
  mlir::Value a, b; // shared tiles (allocs, or stage selects)
  bool aKInner = true, bKInner = false; // K innermost in the tile
  mlir::Type elem;                      // f16 or bf16
  int64_t tileK = 0, tileN = 0;
};

/// Emits the wgmma main-loop step of `op`, or an error at `op` when its
/// shared tiles are not a wgmma layout.
mlir::LogicalResult emitWarpgroupMma(TileAccumulationContext &context,
                                     TileComputeOp op,
                                     const WarpgroupProblem &p);

} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_WARPGROUPMMAACCUMULATION_H
