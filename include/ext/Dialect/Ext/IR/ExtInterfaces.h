//===- ExtInterfaces.h - ext interfaces -------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTINTERFACES_H
#define EXT_DIALECT_EXT_IR_EXTINTERFACES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

namespace ext {

/// What a tile decomposition needs from the lowering of an ext.kernel to
/// build its work units. Tiles are named by their linear index in
/// [0, numTiles); the emitter applies the kernel's rasterization.
class TileWorkEmitter {
public:
  virtual ~TileWorkEmitter() = default;

  /// Emits the main loop of one work unit: the kernel body for tile `tile`
  /// over reduce iterations [kBegin, kEnd). Returns the accumulator
  /// fragments it leaves (empty for kernels without an accumulator).
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  emitMainloop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
               mlir::Value kBegin, mlir::Value kEnd) = 0;

  /// Emits the epilogue that writes the finished accumulators of `tile`.
  virtual mlir::LogicalResult emitEpilogue(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value tile,
                                           mlir::ValueRange fragments) = 0;
};

} // namespace ext

#include "ext/Dialect/Ext/IR/ExtAttrInterfaces.h.inc"

#endif // EXT_DIALECT_EXT_IR_EXTINTERFACES_H
