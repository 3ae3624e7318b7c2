//===- LaneIndices.cpp - index arithmetic of a factor's run ---------------===//
//
// See LaneIndices.h.
//
//===----------------------------------------------------------------------===//

#include "LaneIndices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <functional>

using namespace mlir;
using namespace ext;

/// The values of an expression of kVar alone over [0, kVarRange).
std::optional<SmallVector<int64_t>> LaneIndices::valuesOverK(AffineExpr e) const {
  if (kVarRange < 1 || e.isFunctionOfDim(0))
    return std::nullopt;
  for (unsigned s = 0; s < symbols.size(); ++s)
    if (e.isFunctionOfSymbol(s))
      return std::nullopt;
  SmallVector<int64_t> out;
  for (int64_t t = 0; t < kVarRange; ++t) {
    AffineExpr v = simplifyAffineExpr(
        e.replaceDims({getAffineConstantExpr(0, ctx),
                       getAffineConstantExpr(t, ctx)}),
        2, symbols.size());
    auto cst = dyn_cast<AffineConstantExpr>(v);
    if (!cst)
      return std::nullopt;
    out.push_back(cst.getValue());
  }
  return out;
}

/// MLIR's simplification, then kVar's range: an expression of kVar
/// alone that is linear over [0, kVarRange) (`(2 t + 8) mod 8 floordiv 2`
/// is t for t < 4; `(2 t + 16) mod 32 floordiv 16` is 0) is that line.
AffineExpr LaneIndices::simplify(AffineExpr e) const {
  e = simplifyAffineExpr(dropMultiples(e), 2, symbols.size());
  if (isa<AffineConstantExpr>(e))
    return e;
  auto values = valuesOverK(e);
  if (!values)
    return e;
  int64_t v0 = (*values)[0], step = values->size() > 1 ? (*values)[1] - v0 : 0;
  for (auto [t, v] : llvm::enumerate(*values))
    if (v != v0 + step * int64_t(t))
      return e;
  return getAffineDimExpr(1, ctx) * step + v0;
}

/// Whether two per-element expressions are equal at every element.
bool LaneIndices::same(AffineExpr a, AffineExpr b) const {
  auto diff = dyn_cast<AffineConstantExpr>(simplify(a - b));
  return a == b || (diff && diff.getValue() == 0);
}
bool LaneIndices::allSame(ArrayRef<AffineExpr> exprs) const {
  return llvm::all_of(exprs, [&](AffineExpr e) { return same(e, exprs[0]); });
}

/// `(X + c m Y) mod c` is `X mod c` and `(X + c m Y) floordiv c` is
/// `X floordiv c + m Y`, which MLIR's simplification does not see when
/// X holds a constant (the k tile's offset, iv * tileK, under a divisor
/// of tileK).
AffineExpr LaneIndices::dropMultiples(AffineExpr e) {
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return e;
  AffineExpr l = dropMultiples(bin.getLHS()), r = dropMultiples(bin.getRHS());
  auto c = dyn_cast<AffineConstantExpr>(r);
  bool quasi = e.getKind() == AffineExprKind::Mod ||
               e.getKind() == AffineExprKind::FloorDiv;
  if (!quasi || !c || c.getValue() <= 0) {
    switch (e.getKind()) {
    case AffineExprKind::Add: return l + r;
    case AffineExprKind::Mul: return l * r;
    case AffineExprKind::Mod: return l % r;
    case AffineExprKind::FloorDiv: return l.floorDiv(r);
    default: return l.ceilDiv(r);
    }
  }
  SmallVector<AffineExpr> terms;
  std::function<void(AffineExpr)> collect = [&](AffineExpr t) {
    if (t.getKind() == AffineExprKind::Add) {
      auto sum = cast<AffineBinaryOpExpr>(t);
      collect(sum.getLHS());
      collect(sum.getRHS());
    } else {
      terms.push_back(t);
    }
  };
  collect(l);
  int64_t divisor = c.getValue();
  AffineExpr kept = getAffineConstantExpr(0, e.getContext());
  AffineExpr pulled = kept;
  for (AffineExpr t : terms) {
    int64_t factor = 1;
    if (auto cst = dyn_cast<AffineConstantExpr>(t))
      factor = cst.getValue();
    else if (t.getKind() == AffineExprKind::Mul)
      if (auto m = dyn_cast<AffineConstantExpr>(
              cast<AffineBinaryOpExpr>(t).getRHS()))
        factor = m.getValue();
    if (factor % divisor == 0)
      pulled = pulled + t.floorDiv(divisor);
    else
      kept = kept + t;
  }
  if (e.getKind() == AffineExprKind::Mod)
    return kept % divisor;
  return kept.floorDiv(divisor) + pulled;
}

/// An index from above the body: a symbol, times its constant factor
/// (the k tile's offset, iv * tileK, keeps k's parity known).
AffineExpr LaneIndices::outsideExpr(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return getAffineConstantExpr(c.getSExtValue(), ctx);
  int64_t factor = 1;
  if (auto mul = v.getDefiningOp<arith::MulIOp>();
      mul && matchPattern(mul.getRhs(), m_ConstantInt(&c))) {
    factor = c.getSExtValue();
    v = mul.getLhs();
  }
  auto *it = llvm::find(symbols, v);
  unsigned position = it - symbols.begin();
  if (it == symbols.end())
    symbols.push_back(v);
  return getAffineSymbolExpr(position, ctx) * factor;
}

/// The values `e` takes, where they are bounded: kVar in [0,
/// kVarRange), a non-negative L mod c in [0, c).
std::optional<std::pair<int64_t, int64_t>> LaneIndices::interval(AffineExpr e) const {
  using Range = std::pair<int64_t, int64_t>;
  if (auto values = valuesOverK(e))
    return Range{*llvm::min_element(*values), *llvm::max_element(*values)};
  if (auto cst = dyn_cast<AffineConstantExpr>(e))
    return Range{cst.getValue(), cst.getValue()};
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    if (d.getPosition() == 1 && kVarRange > 0)
      return Range{0, kVarRange - 1};
    return std::nullopt;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (e.getKind() == AffineExprKind::Mod && c && c.getValue() > 0 &&
      nonNegative(bin.getLHS()))
    return Range{0, c.getValue() - 1};
  auto l = interval(bin.getLHS()), r = interval(bin.getRHS());
  if (!l || !r)
    return std::nullopt;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return Range{l->first + r->first, l->second + r->second};
  case AffineExprKind::Mul: {
    int64_t a = l->first * r->first, b = l->first * r->second,
            x = l->second * r->first, y = l->second * r->second;
    return Range{std::min({a, b, x, y}), std::max({a, b, x, y})};
  }
  case AffineExprKind::FloorDiv:
    if (c && c.getValue() > 0)
      return Range{llvm::divideFloorSigned(l->first, c.getValue()),
                   llvm::divideFloorSigned(l->second, c.getValue())};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Whether `e` cannot be negative (indices and offsets are not).
bool LaneIndices::nonNegative(AffineExpr e) const {
  if (auto values = valuesOverK(e))
    return *llvm::min_element(*values) >= 0;
  if (auto cst = dyn_cast<AffineConstantExpr>(e))
    return cst.getValue() >= 0;
  if (auto bin = dyn_cast<AffineBinaryOpExpr>(e))
    return nonNegative(bin.getLHS()) && nonNegative(bin.getRHS());
  return true; // dims and symbols
}
