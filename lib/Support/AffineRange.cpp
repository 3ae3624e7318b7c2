//===- AffineRange.cpp - value ranges of affine accesses ------------------===//

#include "ext/Support/AffineRange.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace ext {

namespace {
std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (llvm::AddOverflow(a, b, r))
    return std::nullopt;
  return r;
}
std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (llvm::MulOverflow(a, b, r))
    return std::nullopt;
  return r;
}

/// Interval arithmetic over the expression tree: used when the expression is
/// not linear (it contains mod or a division).
std::optional<IndexRange> intervalOf(AffineExpr expr,
                                     ArrayRef<int64_t> extents) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    if (d.getPosition() >= extents.size())
      return std::nullopt;
    return IndexRange{0, extents[d.getPosition()] - 1};
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return IndexRange{c.getValue(), c.getValue()};
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt; // a symbol: unknown at compile time
  std::optional<IndexRange> l = intervalOf(bin.getLHS(), extents);
  if (!l)
    return std::nullopt;
  auto rhsConst = dyn_cast<AffineConstantExpr>(bin.getRHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add: {
    std::optional<IndexRange> r = intervalOf(bin.getRHS(), extents);
    if (!r)
      return std::nullopt;
    auto lo = checkedAdd(l->lo, r->lo), hi = checkedAdd(l->hi, r->hi);
    if (!lo || !hi)
      return std::nullopt;
    return IndexRange{*lo, *hi};
  }
  case AffineExprKind::Mul: {
    // Affine multiplication has a constant on one side; canonical form puts
    // it on the right, but accept either.
    std::optional<IndexRange> r = intervalOf(bin.getRHS(), extents);
    if (!r)
      return std::nullopt;
    std::optional<int64_t> c[4] = {checkedMul(l->lo, r->lo),
                                   checkedMul(l->lo, r->hi),
                                   checkedMul(l->hi, r->lo),
                                   checkedMul(l->hi, r->hi)};
    for (auto &v : c)
      if (!v)
        return std::nullopt;
    return IndexRange{std::min({*c[0], *c[1], *c[2], *c[3]}),
                      std::max({*c[0], *c[1], *c[2], *c[3]})};
  }
  case AffineExprKind::Mod: {
    if (!rhsConst || rhsConst.getValue() <= 0)
      return std::nullopt;
    int64_t m = rhsConst.getValue();
    // If the whole interval lies in one period the mod is a shift.
    int64_t qlo = llvm::divideFloorSigned(l->lo, m);
    int64_t qhi = llvm::divideFloorSigned(l->hi, m);
    if (qlo == qhi)
      return IndexRange{l->lo - qlo * m, l->hi - qhi * m};
    return IndexRange{0, m - 1};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    if (!rhsConst || rhsConst.getValue() <= 0)
      return std::nullopt;
    int64_t m = rhsConst.getValue();
    if (expr.getKind() == AffineExprKind::FloorDiv)
      return IndexRange{llvm::divideFloorSigned(l->lo, m),
                        llvm::divideFloorSigned(l->hi, m)};
    return IndexRange{llvm::divideCeilSigned(l->lo, m),
                      llvm::divideCeilSigned(l->hi, m)};
  }
  default:
    return std::nullopt;
  }
}
} // namespace

std::optional<IndexRange> computeAffineRange(AffineExpr expr,
                                             ArrayRef<int64_t> extents) {
  for (int64_t e : extents)
    if (e < 1)
      return std::nullopt;
  bool outOfDomain = false;
  expr.walk([&](AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      outOfDomain |= d.getPosition() >= extents.size();
    outOfDomain |= isa<AffineSymbolExpr>(e);
    // getFlattenedAffineExpr divides by a mod's or division's constant.
    if (auto bin = dyn_cast<AffineBinaryOpExpr>(e))
      if (e.getKind() == AffineExprKind::Mod ||
          e.getKind() == AffineExprKind::FloorDiv ||
          e.getKind() == AffineExprKind::CeilDiv) {
        auto rhs = dyn_cast<AffineConstantExpr>(bin.getRHS());
        outOfDomain |= !rhs || rhs.getValue() <= 0;
      }
  });
  if (outOfDomain)
    return std::nullopt;
  if (!expr.isPureAffine())
    return intervalOf(expr, extents);

  // Linear case: flatten to sum(c_i * d_i) + c; the minimum takes each d_i at
  // 0 or extent-1 by the sign of c_i, and so does the maximum: exact.
  SmallVector<int64_t> coeffs;
  if (failed(getFlattenedAffineExpr(expr, extents.size(), /*numSymbols=*/0,
                                    &coeffs)))
    return intervalOf(expr, extents);
  // coeffs: one per dim, then locals (none for pure affine), then constant.
  if (coeffs.size() != extents.size() + 1)
    return intervalOf(expr, extents);
  std::optional<int64_t> lo = coeffs.back(), hi = coeffs.back();
  for (size_t i = 0; i < extents.size(); ++i) {
    std::optional<int64_t> span = checkedMul(coeffs[i], extents[i] - 1);
    if (!span)
      return std::nullopt;
    if (*span < 0)
      lo = checkedAdd(*lo, *span);
    else
      hi = checkedAdd(*hi, *span);
    if (!lo || !hi)
      return std::nullopt;
  }
  return IndexRange{*lo, *hi};
}

} // namespace ext
