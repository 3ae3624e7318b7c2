//===- TileIR.h - a tile's IR ------------------------------------*- C++ -*-===//
//
// The IR of a tile's geometry (its offsets and valid extents, where an
// input's window starts, the shared tile it is copied into, a view in
// place), the names ops and diagnostics carry, and a compute's body cloned
// into a tile (TileIR.cpp). Private to ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TILEIR_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TILEIR_H

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

/// The in_bounds attribute of copies of `window`; null when no dimension
/// is known to be in bounds.
mlir::DenseBoolArrayAttr inBoundsAttr(mlir::Builder &b,
                                      const InputWindow &window);

/// Builds the code of one tile: offsets and valid extents of every axis.
struct TileFrame {
  llvm::SmallVector<mlir::Value> offsets; // per axis
  llvm::SmallVector<mlir::Value> bounds;  // per axis
};

TileFrame buildFrame(mlir::OpBuilder &b, mlir::Location loc,
                     const TilingPlan &plan, mlir::ValueRange coords);

/// Axis `a`'s extent as an index value (memref.dim for a dynamic one).
mlir::Value extentValue(mlir::OpBuilder &b, mlir::Location loc,
                        const TilingPlan &plan, unsigned a);

/// ceil(extent / tile) of axis `a` as an index value: a dynamic axis's tile
/// count or k-step count, computed from the operand's size.
mlir::Value tileCountValue(mlir::OpBuilder &b, mlir::Location loc,
                           const TilingPlan &plan, unsigned a);

/// The k-steps per tile: `plan.iters`, or ceil(K / tileK) computed from the
/// operand's size over a dynamic reduce extent.
mlir::OpFoldResult itersValue(mlir::OpBuilder &b, mlir::Location loc,
                              const TilingPlan &plan);

/// constant + lo + sum(coeff_a * offset_a): where a window starts in its
/// input; its floordiv or mod by the divisor for a quasi-affine access.
mlir::Value windowOrigin(mlir::OpBuilder &b, mlir::Location loc,
                         const WindowDim &d,
                         llvm::ArrayRef<mlir::Value> offsets);

/// Null when the padded tile's size overflows (planTiling checks first).
mlir::MemRefType sharedTileType(llvm::ArrayRef<int64_t> shape, mlir::Type elem,
                                llvm::ArrayRef<StorageAlignAttr> aligns);

/// A static-size view of `source` starting at `origins`.
mlir::Value tileView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                     mlir::ValueRange origins, llvm::ArrayRef<int64_t> sizes);

/// `loc` named after the phase of the schedule an op implements: the ops
/// lowered from it keep the name, so diagnostics and race reports tell the
/// copy, the compute and the epilogue of one ext.compute apart.
mlir::Location phaseLoc(mlir::Location loc, const llvm::Twine &phase);

/// A compute's `name`, quoted, or "(unnamed)": for diagnostics.
std::string quotedName(ComputeOp op);

/// Copies `op`'s body into the empty region `dst`, turning every ext.index
/// into (tile-local index + the axis' tile offset).
void cloneBodyWithOffsets(ComputeOp op, mlir::Region &dst,
                          llvm::ArrayRef<mlir::Value> offsets);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_TILEIR_H
