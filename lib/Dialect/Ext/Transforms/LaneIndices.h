//===- LaneIndices.h - index arithmetic of a factor's run -------*- C++ -*-===//
//
// The index arithmetic FactorLanes.h builds a computed operand's run of
// elements with: affine expressions over d0 = x (the element's M or N) and
// d1 = kVar (the lane's position along k, in [0, kVarRange)), and symbols
// for the index values from above the body (the k tile's offset), simplified
// with what the lanes know, kVar's range above all: `(2 t + 1) mod 2` is 1,
// `(2 t + 8) mod 8 floordiv 2` is t for t < 4.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_LANEINDICES_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_LANEINDICES_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace ext {

class LaneIndices {
public:
  LaneIndices(mlir::MLIRContext *ctx, int64_t kVarRange)
      : ctx(ctx), kVarRange(kVarRange) {}

  /// The index values from above the body, symbol i being symbols()[i].
  llvm::ArrayRef<mlir::Value> getSymbols() const { return symbols; }

  /// The values of an expression of kVar alone over [0, kVarRange).
  std::optional<llvm::SmallVector<int64_t>> valuesOverK(mlir::AffineExpr e) const;

  /// MLIR's simplification, then kVar's range: an expression of kVar
  /// alone that is linear over [0, kVarRange) (`(2 t + 8) mod 8 floordiv 2`
  /// is t for t < 4; `(2 t + 16) mod 32 floordiv 16` is 0) is that line.
  mlir::AffineExpr simplify(mlir::AffineExpr e) const;

  /// Whether two per-element expressions are equal at every element.
  bool same(mlir::AffineExpr a, mlir::AffineExpr b) const;
  bool allSame(llvm::ArrayRef<mlir::AffineExpr> exprs) const;

  /// `(X + c m Y) mod c` is `X mod c` and `(X + c m Y) floordiv c` is
  /// `X floordiv c + m Y`, which MLIR's simplification does not see when
  /// X holds a constant (the k tile's offset, iv * tileK, under a divisor
  /// of tileK).
  static mlir::AffineExpr dropMultiples(mlir::AffineExpr e);

  /// An index from above the body: a symbol, times its constant factor
  /// (the k tile's offset, iv * tileK, keeps k's parity known).
  mlir::AffineExpr outsideExpr(mlir::Value v);

  /// The values `e` takes, where they are bounded: kVar in [0,
  /// kVarRange), a non-negative L mod c in [0, c).
  std::optional<std::pair<int64_t, int64_t>> interval(mlir::AffineExpr e) const;

  /// Whether `e` cannot be negative (indices and offsets are not).
  bool nonNegative(mlir::AffineExpr e) const;

private:
  mlir::MLIRContext *ctx;
  int64_t kVarRange;
  llvm::SmallVector<mlir::Value> symbols;
};

} // namespace ext

#endif
