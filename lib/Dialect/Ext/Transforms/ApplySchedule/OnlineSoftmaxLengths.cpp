//===- OnlineSoftmaxLengths.cpp - a key count per tile read at run time ---===//
//
// A ragged batch masks each sequence's keys past its length: every fused
// body passes its term through select(j < len[b], x, -inf), len an input
// whose element the tile fixes (read at axes with a tile of 1, the batch).
// The mask alone is right; reading the length once per tile and stopping
// the key loop after its last visible step is what keeps a short sequence
// from streaming the whole capacity of the cache (and a paged cache from
// reading table entries past the sequence's pages). With a split of the
// keys, a unit whose range starts past the length runs no step and leaves
// the identity.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

static Value stripIntCasts(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
             arith::ExtUIOp>(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// The length that bounds the keys in `f`'s mask of `masked`: a conjunct
/// `j < x` (or `<=`, or flipped) of its condition, j the key axis and x an
/// element of an integer input read at axes the tile fixes.
std::optional<OnlineSoftmaxBuilder::KeyLength>
OnlineSoftmaxBuilder::keyLengthOf(const Fused &f, Value masked) {
  Value cond = maskCondition(masked);
  SmallVector<Value> conjuncts{cond};
  std::optional<KeyLength> found;
  while (!conjuncts.empty()) {
    Value c = conjuncts.pop_back_val();
    if (!c)
      continue;
    if (auto a = c.getDefiningOp<arith::AndIOp>()) {
      conjuncts.push_back(a.getLhs());
      conjuncts.push_back(a.getRhs());
      continue;
    }
    auto cmp = c.getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    Value key = stripIntCasts(cmp.getLhs()), bound = stripIntCasts(cmp.getRhs());
    arith::CmpIPredicate pred = cmp.getPredicate();
    using P = arith::CmpIPredicate;
    // x > j is j < x (operands swapped, not the predicate negated).
    if (pred == P::sgt || pred == P::ugt || pred == P::sge || pred == P::uge) {
      std::swap(key, bound);
      pred = pred == P::sgt   ? P::slt
             : pred == P::ugt ? P::ult
             : pred == P::sge ? P::sle
                              : P::ule;
    }
    int64_t slack;
    if (pred == P::slt || pred == P::ult)
      slack = 0;
    else if (pred == P::sle || pred == P::ule)
      slack = 1;
    else
      continue;
    auto index = key.getDefiningOp<IndexOp>();
    if (!index)
      continue;
    std::optional<unsigned> pos = f.op.getAxisPosition(index.getAxis());
    if (!pos || f.anchorAxis[*pos] != static_cast<int>(kAxis))
      continue;
    auto arg = dyn_cast<BlockArgument>(bound);
    if (!arg || arg.getOwner() != &f.op.getBody().front() ||
        arg.getArgNumber() >= f.op.getInputs().size() ||
        !arg.getType().isSignlessInteger())
      continue;
    AffineMap map = f.op.getInputMap(arg.getArgNumber());
    SmallVector<AffineExpr> results;
    bool fixed = true;
    for (AffineExpr e : map.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      int a = d ? f.anchorAxis[d.getPosition()] : -1;
      if (a < 0 || plan.tile[a] != 1) {
        fixed = false;
        break;
      }
      results.push_back(getAffineDimExpr(a, ctx));
    }
    if (!fixed || map.getNumSymbols() != 0)
      continue;
    found = KeyLength{f.op.getInputs()[arg.getArgNumber()],
                      AffineMap::get(plan.axes.size(), 0, results, ctx), slack};
  }
  return found;
}

/// The fused bodies (M's, each sum's, the accumulator's) all bounded by one
/// length, or none.
void OnlineSoftmaxBuilder::resolveKeyLength() {
  auto subLhs = [](const OnlineTerm &t) {
    return cast<arith::SubFOp>(*t.hm.getUsers().begin()).getLhs();
  };
  Block &mb = max.op.getBody().front();
  keyLength = keyLengthOf(max, mb.getTerminator()->getOperand(0));
  auto agree = [&](const Fused &f, Value masked) {
    std::optional<KeyLength> other = keyLengthOf(f, masked);
    if (!keyLength || !other || !(*keyLength == *other))
      keyLength = std::nullopt;
  };
  for (auto [f, t] : llvm::zip(sums, sumTerms))
    agree(f, subLhs(t));
  agree(self, subLhs(anchorTerm));
}

/// ceil((len + slack) / keys) for this tile, at least 0.
Value OnlineSoftmaxBuilder::keyLengthSteps() {
  SmallVector<Value> indices;
  for (AffineExpr e : keyLength->map.getResults())
    indices.push_back(frame.offsets[cast<AffineDimExpr>(e).getPosition()]);
  Value len = memref::LoadOp::create(rw, loc, keyLength->input, indices);
  Value n = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), len);
  if (keyLength->slack)
    n = arith::AddIOp::create(rw, loc, n, constIndex(rw, loc, keyLength->slack));
  n = arith::MaxSIOp::create(rw, loc, n, constIndex(rw, loc, 0));
  return arith::CeilDivUIOp::create(rw, loc, n, constIndex(rw, loc, keys));
}
