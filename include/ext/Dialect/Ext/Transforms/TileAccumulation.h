//===- TileAccumulation.h - strategies of accumulating tile computes -*- C++ -*-===//
//
// ext-tile-ops-to-threads lowers an ext.tile_compute that accumulates into
// fragments through the strategy its fragment layout provides
// (TileAccumulationAttrInterface). The strategies are external models the
// transforms library attaches: they emit instructions (vector, nvgpu,
// amdgpu) the IR library does not depend on.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_TILEACCUMULATION_H
#define EXT_DIALECT_EXT_TRANSFORMS_TILEACCUMULATION_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {

/// What the tile lowering tells a strategy about the tile compute it lowers.
class TileAccumulationContext {
public:
  virtual ~TileAccumulationContext() = default;
  /// Emits at the rewriter's insertion point (inside the op's thread guard).
  virtual mlir::RewriterBase &getRewriter() = 0;
  /// The thread's linear id in the block (`gpu.thread_id x`).
  virtual mlir::Value getThreadId() = 0;
  /// Every axis' valid extent (`bounds`, or the tile size).
  virtual llvm::ArrayRef<mlir::Value> getBounds() = 0;
  /// The thread's registers of a fragment (a private buffer of the layout's
  /// local shape); null when `value` is not a fragment.
  virtual mlir::Value getFragmentStorage(mlir::Value value) = 0;
  /// The chip the kernel is lowered for, when known.
  virtual const std::optional<ChipInfo> &getChip() = 0;
  /// The element-wise strategy (register blocking with fused
  /// multiply-adds), which every layout can take: a strategy falls back to
  /// it for bodies it has no instructions for.
  virtual llvm::LogicalResult emitElementwise(TileComputeOp op) = 0;
};

/// A pipelined k-loop (scf.for) whose copies run far enough ahead that the
/// warpgroup MMAs of one step may stay in flight until the next step's have
/// issued: the strategy carries the accumulators through the loop and waits
/// with wgmma.wait_group 1 (KLoop.cpp states the schedule that allows it).
inline constexpr llvm::StringLiteral kMmaInFlightAttrName = "ext.mma_in_flight";
/// On the scf.if of a warp-specialized kernel whose then-region runs on the
/// CTA's first N threads (the consumer warpgroups; N is the attribute's
/// value): the tile lowering distributes that region's tile ops over N.
inline constexpr llvm::StringLiteral kRoleThreadsAttrName = "ext.role_threads";
/// With kRoleThreadsAttrName, the then-region runs groups of N threads each
/// on its own work (ping-pong consumers): a thread's id in its tile ops is
/// its id modulo N.
inline constexpr llvm::StringLiteral kRoleLocalIdsAttrName =
    "ext.role_local_ids";

/// Attaches every built-in layout's strategy (element-wise for #ext.cyclic
/// and #ext.blocked, tensor cores for #ext.mma).
void registerTileAccumulationModels(mlir::DialectRegistry &registry);

/// Attaches the #ext.cyclic and #ext.blocked strategy, register blocking
/// (ElementwiseAccumulation.cpp).
void attachElementwiseAccumulationModels(mlir::MLIRContext *context);

/// Attaches the #ext.mma strategy (MmaAccumulation.cpp).
void attachMmaAccumulationModel(mlir::MLIRContext *context);

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_TILEACCUMULATION_H
