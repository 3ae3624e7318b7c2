//===- GuardedReads.cpp - where a compute reads its inputs ----------------===//
//
// The read block of an input's element and the branch conditions over it
// (GuardedReads.h), and the check that an access stays in bounds under its
// guards: the guards and the axes' extents as a Presburger set, asked for
// an integer point where the access leaves [0, size).
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/GuardedReads.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace ext;

Block *ext::getReadBlock(Value arg) {
  Block *home = arg.getParentBlock();
  Block *common = nullptr;
  for (Operation *user : arg.getUsers()) {
    Block *b = user->getBlock();
    if (!common) {
      common = b;
      continue;
    }
    // The innermost block holding both.
    while (common != home && !common->findAncestorOpInBlock(*user))
      common = common->getParentOp()->getBlock();
  }
  return common;
}

bool ext::hasGuardedReads(Region &body) {
  Block &entry = body.front();
  return llvm::any_of(entry.getArguments(), [&](BlockArgument arg) {
    Block *b = getReadBlock(arg);
    return b && b != &entry;
  });
}

SmallVector<Guard> ext::getGuards(Block *block, Block *entry) {
  SmallVector<Guard> guards;
  while (block && block != entry) {
    Operation *parent = block->getParentOp();
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      guards.push_back(
          {ifOp.getCondition(), block->getParent() == &ifOp.getThenRegion()});
    block = parent->getBlock();
  }
  std::reverse(guards.begin(), guards.end());
  return guards;
}

namespace {

/// `v` as an affine expression of the compute's axes (ext.index), through
/// integer casts, + - and * by constants, and affine.apply; null if not.
AffineExpr asAffine(ComputeOp op, Value v) {
  MLIRContext *ctx = op.getContext();
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return getAffineConstantExpr(*c, ctx);
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  if (auto index = dyn_cast<IndexOp>(def)) {
    std::optional<unsigned> pos = op.getAxisPosition(index.getAxis());
    return pos ? getAffineDimExpr(*pos, ctx) : AffineExpr();
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(def))
    return asAffine(op, def->getOperand(0));
  auto both = [&]() -> std::pair<AffineExpr, AffineExpr> {
    return {asAffine(op, def->getOperand(0)), asAffine(op, def->getOperand(1))};
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    auto [l, r] = both();
    if (!l || !r)
      return {};
    if (isa<arith::AddIOp>(def))
      return l + r;
    if (isa<arith::SubIOp>(def))
      return l - r;
    if (!isa<AffineConstantExpr>(l) && !isa<AffineConstantExpr>(r))
      return {};
    return l * r;
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    SmallVector<AffineExpr> dims;
    for (Value operand : apply.getMapOperands()) {
      dims.push_back(asAffine(op, operand));
      if (!dims.back())
        return {};
    }
    AffineMap map = apply.getAffineMap();
    if (map.getNumSymbols() != 0)
      return {};
    return map.getResult(0).replaceDims(dims);
  }
  return {};
}

/// Constraints (expr >= 0, or == 0 where `eq`) that `guard` implies.
void addConstraints(ComputeOp op, Value cond, bool holds,
                    SmallVectorImpl<std::pair<AffineExpr, bool>> &out) {
  Operation *def = cond.getDefiningOp();
  if (!def)
    return;
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    // not (a and b) is a disjunction: nothing convex to add.
    if (holds) {
      addConstraints(op, andOp.getLhs(), true, out);
      addConstraints(op, andOp.getRhs(), true, out);
    }
    return;
  }
  if (auto orOp = dyn_cast<arith::OrIOp>(def)) {
    if (!holds) {
      addConstraints(op, orOp.getLhs(), false, out);
      addConstraints(op, orOp.getRhs(), false, out);
    }
    return;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp)
    return;
  AffineExpr l = asAffine(op, cmp.getLhs()), r = asAffine(op, cmp.getRhs());
  if (!l || !r)
    return;
  using P = arith::CmpIPredicate;
  P pred = holds ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
  auto nonNegativeConstant = [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c && c.getValue() >= 0;
  };
  switch (pred) {
  case P::slt:
    out.push_back({r - l - 1, false});
    break;
  case P::sle:
    out.push_back({r - l, false});
    break;
  case P::sgt:
    out.push_back({l - r - 1, false});
    break;
  case P::sge:
    out.push_back({l - r, false});
    break;
  case P::eq:
    out.push_back({l - r, true});
    break;
  // An unsigned compare against a non-negative bound also bounds the value
  // below by 0 (a negative one is a huge unsigned number): `y - 1 <u H`.
  case P::ult:
  case P::ule:
    if (nonNegativeConstant(r)) {
      out.push_back({l, false});
      out.push_back({pred == P::ult ? r - l - 1 : r - l, false});
    }
    break;
  case P::ugt:
  case P::uge:
    if (nonNegativeConstant(l)) {
      out.push_back({r, false});
      out.push_back({pred == P::ugt ? l - r - 1 : l - r, false});
    }
    break;
  default:
    break;
  }
}

} // namespace

std::optional<bool> ext::inBoundsUnderGuards(ComputeOp op,
                                             ArrayRef<Guard> guards,
                                             AffineExpr expr, int64_t size,
                                             std::string &witness) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  unsigned n = axes.size();
  auto flatten = [&](AffineExpr e) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> flat;
    if (failed(getFlattenedAffineExpr(e, n, 0, &flat)) || flat.size() != n + 1)
      return std::nullopt;
    return flat;
  };
  std::optional<SmallVector<int64_t>> access = flatten(expr);
  if (!access)
    return std::nullopt;
  presburger::IntegerPolyhedron domain(
      presburger::PresburgerSpace::getSetSpace(n));
  for (auto [a, axis] : llvm::enumerate(axes)) {
    if (axis.isDynamic())
      return std::nullopt;
    SmallVector<int64_t> lo(n + 1, 0), hi(n + 1, 0);
    lo[a] = 1;                        // x_a >= 0
    hi[a] = -1;                       // extent - 1 - x_a >= 0
    hi[n] = axis.getExtent() - 1;
    domain.addInequality(lo);
    domain.addInequality(hi);
  }
  SmallVector<std::pair<AffineExpr, bool>> constraints;
  for (const Guard &g : guards)
    addConstraints(op, g.condition, g.holds, constraints);
  for (auto [e, eq] : constraints) {
    std::optional<SmallVector<int64_t>> flat = flatten(e);
    if (!flat)
      continue; // constrains nothing: a stricter check
    if (eq)
      domain.addEquality(*flat);
    else
      domain.addInequality(*flat);
  }
  // A point of the domain where the access is below 0 or at least `size`.
  for (bool below : {true, false}) {
    presburger::IntegerPolyhedron outside = domain;
    SmallVector<int64_t> row(n + 1);
    for (unsigned i = 0; i <= n; ++i)
      row[i] = below ? -(*access)[i] : (*access)[i];
    row[n] += below ? -1 : -size; // -e - 1 >= 0, or e - size >= 0
    outside.addInequality(row);
    if (auto point = outside.findIntegerSample()) {
      llvm::raw_string_ostream os(witness);
      for (auto [a, axis] : llvm::enumerate(axes))
        os << (a ? ", " : "") << axis.getName() << " = "
           << int64_t((*point)[a]);
      return false;
    }
  }
  return true;
}
