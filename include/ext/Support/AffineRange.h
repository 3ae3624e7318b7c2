//===- AffineRange.h - value ranges of affine accesses ----------*- C++ -*-===//
//
// The range an affine expression takes over a box domain [0, extent_i). Used
// to check that an access stays inside its operand, and to size guards.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_AFFINERANGE_H
#define EXT_SUPPORT_AFFINERANGE_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>

namespace ext {

/// A closed interval [lo, hi] of integers.
struct IndexRange {
  int64_t lo;
  int64_t hi;
  bool operator==(const IndexRange &o) const { return lo == o.lo && hi == o.hi; }
};

/// The tightest interval containing every value of `expr` when dimension `i`
/// ranges over [0, extents[i]) (every extent must be >= 1). Exact for linear
/// expressions (the box's extreme corners are attained); for mod, floordiv and
/// ceildiv by constants an interval over-approximation. Returns std::nullopt
/// for symbols, non-constant or non-positive divisors, non-constant
/// multipliers, or on overflow.
std::optional<IndexRange> computeAffineRange(mlir::AffineExpr expr,
                                             llvm::ArrayRef<int64_t> extents);

} // namespace ext

#endif // EXT_SUPPORT_AFFINERANGE_H
