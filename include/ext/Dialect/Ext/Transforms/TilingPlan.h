//===- TilingPlan.h - the plan ext-apply-schedule makes ----------*- C++ -*-===//
//
// What ext-apply-schedule derives from an ext.compute and its schedule,
// before it builds anything: the tile grid, the reduce axis split into
// k-steps, the operands that go through shared memory, and each input's
// window over a tile. planTiling checks every number against 64-bit
// overflow (they all come from the input) and reports at the compute.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H
#define EXT_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "llvm/ADT/SmallBitVector.h"

#include <optional>

namespace ext {
namespace tiling {

/// One access expression of an input, split for tiling: over a tile whose
/// origin is `o`, the expression sum(coeff_a * x_a) + constant takes values in
/// [origin, origin + size), and the point x's element sits at local(x - o).
///
/// A quasi-affine access `L floordiv divisor` or `L mod divisor` (L linear,
/// in `coeffs` and `constant`) is tiled where every tile's origin of L, less
/// `lo`, is a multiple of the divisor (the tiles of the axes L moves with
/// cover whole multiples) or where every tile of L lies inside one multiple:
/// the window then starts at L's origin divided by (or modulo) the divisor,
/// and `size` counts packed elements (bytes of two nibbles, groups).
struct WindowDim {
  enum class Kind : uint8_t { Linear, FloorDiv, Mod };
  llvm::SmallVector<int64_t> coeffs; // one per axis
  int64_t constant = 0;
  /// min over the tile box of sum(coeff_a * x_a); for a quasi-affine access
  /// whose tiles cover whole multiples, lowered so that constant + lo is one.
  int64_t lo = 0;
  int64_t size = 1; // window extent
  Kind kind = Kind::Linear;
  /// The tile offsets move L by multiples of the divisor: a FloorDiv
  /// window's origin divides exactly, a Mod window's is a constant.
  bool aligned = false;
  int64_t divisor = 1; // of a FloorDiv or Mod access
  /// `(L mod divisor) floordiv postDivisor` (a Mod window of whole periods
  /// read in units of postDivisor: a packed word holding the codes of one
  /// lane, `Wq[n, k floordiv 32, (k mod 8) floordiv 2]`).
  int64_t postDivisor = 1;
  /// A constant added to the quotient or remainder, `(L mod c) + offset`
  /// (a slice of a packed dimension: the K of a fused QKV projection).
  int64_t offset = 0;
};

/// The window of one input over a tile: per result, its extent and the
/// tile-local access map.
struct InputWindow {
  llvm::SmallVector<WindowDim> dims;
  mlir::AffineMap localMap;
  llvm::SmallVector<int64_t> shape;
  /// What the input's innermost size is known to be a multiple of when it
  /// is dynamic: the `multiple_of` of the axis it is bound to (checked
  /// before the kernel), for the copies' vector width.
  int64_t rowMultiple = 1;
  /// Per input dimension: the window lies inside the input wherever a tile
  /// or k-step puts it (an axis indexing the dimension alone, whose extent,
  /// or stated multiple, the tile divides): the copies need not mask it.
  llvm::SmallVector<bool> inBounds;

  /// The first dimension read through a floordiv or mod, if any.
  std::optional<unsigned> firstQuasiAffineDim() const {
    for (auto [d, wd] : llvm::enumerate(dims))
      if (wd.kind != WindowDim::Kind::Linear)
        return d;
    return std::nullopt;
  }
};

/// Everything ext-apply-schedule derives from a compute and its schedule.
struct TilingPlan {
  llvm::SmallVector<AxisAttr> axes;
  /// ShapedType::kDynamic for an extent of `?`, whose size is that of the
  /// operand and dimension in `extentSources[a]` (getExtentSource).
  llvm::SmallVector<int64_t> extents, tile, threads;
  llvm::SmallVector<std::optional<std::pair<mlir::Value, unsigned>>>
      extentSources;
  llvm::SmallVector<unsigned>
      blockedAxes; // spatial axes indexing the tile grid
  /// Per blocked axis; ShapedType::kDynamic over a dynamic extent.
  llvm::SmallVector<int64_t> tileCounts;
  std::optional<unsigned> kAxis; // the reduce axis split into iterations
  /// k-steps per tile; ShapedType::kDynamic over a dynamic reduce extent.
  int64_t iters = 1;
  bool useFragments = false;
  llvm::SmallVector<unsigned> spatialAxes;
  llvm::SmallBitVector cached;
  llvm::SmallVector<CacheAttr> cacheAttrs;  // per input, null if not cached
  llvm::SmallVector<CacheAttr> outputCache; // per output, null if not staged
  llvm::SmallVector<InputWindow, 0> windows; // per input (heap: large)
};

/// The plan of `op` under `schedule`; a failure, reported at `op`, for a
/// schedule the compute cannot be tiled by.
mlir::FailureOr<TilingPlan> planTiling(ComputeOp op, ScheduleAttr schedule);

/// True if axis `a`'s tile divides its extent, or for a dynamic extent its
/// stated multiple_of (checked when the compute runs): no tile or k-step
/// of the axis is ragged.
bool tileDividesExtent(const TilingPlan &plan, unsigned a);

} // namespace tiling
} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H
