//===- OnlineSoftmaxAnalysis.cpp - what the online softmax fuses ----------===//
//
// The checks and the reading of the IR that the online-softmax rewrite rests
// on, before it builds anything: the max M and the sums fused into the
// anchor, that each reads M only in a factor exp(u - h(M)) (which is what
// makes the rescale exact), the anchor's summand as P * V, the scores'
// producer attached at the keys, and a causal-style mask every fused body
// applies (its key tiles are skipped).
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

SmallVector<Value> online::dependencies(Operation *op) {
  SmallVector<Value> out(op->getOperands());
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  llvm::append_range(out, above);
  return out;
}

llvm::SetVector<Operation *> online::forwardSlice(Value root) {
  Block *block = root.getParentBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers())
      if (Operation *top = block->findAncestorOpInBlock(*user);
          top && slice.insert(top))
        llvm::append_range(work, top->getResults());
  }
  return slice;
}

namespace {

bool isZero(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && f.getValue().isZero();
}

bool isNegInf(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && f.getValue().isInfinity() && f.getValue().isNegative();
}

/// A linear form over the axes of a compute: sum(coeff[a] * index_a) + c.
struct IndexForm {
  SmallVector<int64_t> coeffs;
  int64_t constant = 0;
};

std::optional<IndexForm> indexForm(ComputeOp c, Value v) {
  unsigned n = c.getAxisList().size();
  if (auto idx = v.getDefiningOp<IndexOp>()) {
    IndexForm f{SmallVector<int64_t>(n, 0), 0};
    f.coeffs[*c.getAxisPosition(idx.getAxis())] = 1;
    return f;
  }
  if (std::optional<int64_t> k = getConstantIntValue(v))
    return IndexForm{SmallVector<int64_t>(n, 0), *k};
  Operation *op = v.getDefiningOp();
  if (auto cast = dyn_cast_if_present<arith::IndexCastOp>(op))
    return indexForm(c, cast.getIn());
  if (!op || !isa<arith::AddIOp, arith::SubIOp>(op))
    return std::nullopt;
  std::optional<IndexForm> l = indexForm(c, op->getOperand(0));
  std::optional<IndexForm> r = indexForm(c, op->getOperand(1));
  if (!l || !r)
    return std::nullopt;
  int64_t sign = isa<arith::SubIOp>(op) ? -1 : 1;
  for (unsigned a = 0; a < n; ++a)
    l->coeffs[a] += sign * r->coeffs[a];
  l->constant += sign * r->constant;
  return l;
}

} // namespace

LogicalResult online::analyzeTerm(ComputeOp anchor, ComputeOp c,
                                  unsigned mInput, StringRef mName,
                                  OnlineTerm &term) {
  Block &body = c.getBody().front();
  term.m = body.getArgument(mInput);
  auto err = [&]() {
    return anchor.emitOpError()
           << "schedule: online: " << quotedName(c) << " must read '" << mName
           << "' only in a factor exp(x - h('" << mName
           << "')) of its summand (the online rewrite rescales that factor)";
  };
  llvm::SetVector<Operation *> slice = forwardSlice(term.m);
  // h: the ops of M and constants before the subtraction.
  arith::SubFOp sub;
  for (Operation *op : slice) {
    if (auto s = dyn_cast<arith::SubFOp>(op);
        s && !slice.contains(s.getLhs().getDefiningOp()) &&
        s.getLhs() != term.m) {
      if (sub)
        return err() << "; it subtracts it twice";
      sub = s;
      continue;
    }
  }
  if (!sub)
    return err() << "; no subtraction x - h(m) found";
  term.hm = sub.getRhs();
  if (!sub.getResult().hasOneUse())
    return err();
  Operation *exp = *sub.getResult().getUsers().begin();
  if (!isa<math::ExpOp, math::Exp2Op>(exp))
    return err() << "; x - h(m) must go straight into math.exp or math.exp2";
  term.exp = exp->getResult(0);
  term.base2 = isa<math::Exp2Op>(exp);
  for (Operation *op : slice) {
    if (op == sub || op == exp || isa<YieldOp>(op))
      continue;
    if (op->isBeforeInBlock(sub)) {
      // h: ops of M and constants.
      if (op->getNumResults() != 1)
        return err();
      for (Value operand : op->getOperands())
        if (operand != term.m && !slice.contains(operand.getDefiningOp()) &&
            !operand.getDefiningOp<arith::ConstantOp>())
          return err() << "; h reads more than '" << mName
                       << "' and constants";
      term.hOps.push_back(op);
      continue;
    }
    // From the exp to the yield: scalings by values that do not read M.
    bool scaling =
        isa<arith::MulFOp, arith::ExtFOp, arith::TruncFOp>(op) ||
        (isa<arith::DivFOp>(op) &&
         slice.contains(op->getOperand(0).getDefiningOp())) ||
        (isa<arith::SelectOp>(op) &&
         (isZero(op->getOperand(1)) || isZero(op->getOperand(2))) &&
         !slice.contains(op->getOperand(0).getDefiningOp()));
    unsigned fromSlice = 0;
    for (Value operand : op->getOperands()) {
      if (operand == term.m)
        scaling = false;
      if (Operation *def = operand.getDefiningOp(); def && slice.contains(def))
        ++fromSlice;
    }
    if (!scaling || fromSlice != 1)
      return err() << "; '" << op->getName() << "' applies to it";
  }
  llvm::sort(term.hOps,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return success();
}

Value online::maskCondition(Value masked) {
  // Walk back through element-wise ops of one operand to the select.
  for (Value v = masked; v;) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return Value();
    // scf.if %c { yield x } else { yield -inf }: Python's if_then_else.
    Value cond, falseValue;
    if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && ifOp->getNumResults() == 1 &&
                                               !ifOp.getElseRegion().empty()) {
      cond = ifOp.getCondition();
      falseValue = ifOp.elseYield().getOperand(0);
    } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      cond = sel.getCondition();
      falseValue = sel.getFalseValue();
    } else {
      // Through ops that keep -inf at -inf: casts, and adding or
      // multiplying by a finite (positive) constant.
      if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
        v = op->getOperand(0);
        continue;
      }
      if (isa<arith::MulFOp, arith::AddFOp>(op)) {
        auto constOf = [](Value x) -> std::optional<APFloat> {
          auto c = x.getDefiningOp<arith::ConstantOp>();
          auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
          if (!f || !f.getValue().isFinite())
            return std::nullopt;
          return f.getValue();
        };
        bool mul = isa<arith::MulFOp>(op);
        for (unsigned k = 0; k < 2; ++k) {
          std::optional<APFloat> other = constOf(op->getOperand(1 - k));
          if (other && (!mul || (!other->isNegative() && !other->isZero()))) {
            v = op->getOperand(k);
            break;
          }
        }
        if (v != op->getResult(0))
          continue;
      }
      return Value();
    }
    if (!isNegInf(falseValue))
      return Value();
    return cond;
  }
  return Value();
}

std::optional<int64_t> online::causalOffset(ComputeOp c, Value masked,
                                            unsigned kAxis, unsigned rowAxis) {
  Value cond = maskCondition(masked);
  auto cmp = cond ? cond.getDefiningOp<arith::CmpIOp>() : arith::CmpIOp();
  if (!cmp)
    return std::nullopt;
  std::optional<IndexForm> l = indexForm(c, cmp.getLhs());
  std::optional<IndexForm> r = indexForm(c, cmp.getRhs());
  if (!l || !r)
    return std::nullopt;
  // Normalize to lhs - rhs <= k.
  int64_t slack = 0;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    break;
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    slack = -1;
    break;
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge:
    std::swap(l, r);
    break;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    std::swap(l, r);
    slack = -1;
    break;
  default:
    return std::nullopt;
  }
  // l - r <= slack, with l - r = j - i + const.
  for (unsigned a = 0; a < l->coeffs.size(); ++a) {
    int64_t d = l->coeffs[a] - r->coeffs[a];
    int64_t want = a == kAxis ? 1 : a == rowAxis ? -1 : 0;
    if (d != want)
      return std::nullopt;
  }
  // j - i + (lc - rc) <= slack  =>  j <= i + slack - lc + rc.
  return slack - l->constant + r->constant;
}

LogicalResult OnlineSoftmaxBuilder::mapAxes(Fused &f, AffineMap readByAnchor,
                                            AffineMap readByF) {
  SmallVector<AxisAttr> axes = f.op.getAxisList();
  f.anchorAxis.assign(axes.size(), -2);
  for (auto [r, e] : llvm::enumerate(readByF.getResults())) {
    auto mine = dyn_cast<AffineDimExpr>(e);
    auto theirs = dyn_cast<AffineDimExpr>(readByAnchor.getResult(r));
    if (!mine || !theirs)
      return err() << quotedName(f.op) << " and " << quotedName(anchor)
                   << " must index '"
                   << schedule.getOnline().front().getValue()
                   << "' at plain axes";
    f.anchorAxis[mine.getPosition()] = theirs.getPosition();
  }
  for (auto [a, axis] : llvm::enumerate(axes)) {
    if (axis.isReduce()) {
      if (f.anchorAxis[a] != -2)
        return err() << quotedName(f.op) << " indexes '"
                     << schedule.getOnline().front().getValue()
                     << "' by its reduce axis '" << axis.getName() << "'";
      f.anchorAxis[a] = kAxis;
    } else if (f.anchorAxis[a] == -2) {
      return err() << "the rows of " << quotedName(f.op) << " (axis '"
                   << axis.getName() << "') must be those of '"
                   << schedule.getOnline().front().getValue() << "'";
    }
    if (axis.getExtent() != plan.extents[f.anchorAxis[a]])
      return err() << quotedName(f.op) << "'s axis '" << axis.getName()
                   << "' has extent " << axis.getExtent() << " where "
                   << quotedName(anchor) << "'s axis '"
                   << plan.axes[f.anchorAxis[a]].getName() << "' has "
                   << plan.extents[f.anchorAxis[a]];
  }
  unsigned reduces = llvm::count_if(axes, [](AxisAttr a) { return a.isReduce(); });
  if (reduces != 1)
    return err() << quotedName(f.op) << " must have one reduce axis (the "
                 << "keys), not " << reduces;
  return success();
}

FailureOr<ComputeOp> OnlineSoftmaxBuilder::findFused(StringAttr name) {
  return findNamedCompute(anchor, name.getValue(), [&]() {
    return err() << "'" << name.getValue() << "': ";
  });
}

LogicalResult OnlineSoftmaxBuilder::resolve() {
  if (!plan.kAxis || plan.useFragments == false)
    return err() << quotedName(anchor)
                 << " must be a reduction over the keys accumulated in "
                    "registers (one reduce axis, on one thread)";
  kAxis = *plan.kAxis;
  if (anchor.getCombiner() != CombinerKind::sum || anchor.getOutputs().size() != 1)
    return err() << quotedName(anchor)
                 << " must be a sum with one output (the accumulator)";
  // A dynamic extent (a symbolic sequence length or batch) is the key axis,
  // stepped through with its last step masked, or a spatial axis bound to
  // blocks (the verifier requires that), whose last tile is masked; the tile
  // counts and the key steps are computed at launch.
  for (auto [a, e] : llvm::enumerate(plan.extents))
    if (ShapedType::isDynamic(e) && a != kAxis &&
        !llvm::is_contained(plan.blockedAxes, a))
      return err() << "axis '" << plan.axes[a].getName()
                   << "' has a dynamic extent: only the keys and the axes "
                      "bound to blocks may";
  if (llvm::any_of(plan.outputCache, [](CacheAttr c) { return bool(c); }))
    return err() << "the output cannot be staged through shared memory";

  self.op = anchor;
  for (unsigned a = 0; a < plan.axes.size(); ++a)
    self.anchorAxis.push_back(a);
  if (failed(resolveMax()) || failed(resolveSums()) ||
      failed(analyzeTerm(anchor, anchor, anchorMInput,
                         schedule.getOnline().front().getValue(),
                         anchorTerm)) ||
      failed(moveSumsBeforeAnchor()) || failed(resolveValueFactor()) ||
      failed(resolveScores()))
    return failure();
  resolveCausalMask();
  resolveKeyLength();
  return success();
}

/// M: a max reduction the anchor reads once; its axes give the rows (those
/// it indexes M by) and the values (the others but the keys).
LogicalResult OnlineSoftmaxBuilder::resolveMax() {
  StringAttr name = schedule.getOnline().front();
  FailureOr<ComputeOp> m = findFused(name);
  if (failed(m))
    return failure();
  max.op = *m;
  if (max.op.getCombiner() != CombinerKind::max ||
      max.op.getOutputs().size() != 1)
    return err() << "'" << name.getValue()
                 << "' must be a max reduction with one output";
  if (max.op.getScheduleAttr())
    return err() << "'" << name.getValue()
                 << "' has its own schedule; it runs in "
                 << quotedName(anchor) << "'s kernel";
  Value mOut = max.op.getOutputs()[0];
  // The anchor reads M once.
  std::optional<unsigned> mIn;
  for (auto [i, in] : llvm::enumerate(anchor.getInputs()))
    if (in == mOut)
      mIn = i;
  if (!mIn)
    return err() << quotedName(anchor) << " does not read '"
                 << name.getValue() << "'";
  anchorMInput = *mIn;
  AffineMap anchorReadsM = anchor.getInputMap(*mIn);
  if (failed(mapAxes(max, anchorReadsM, max.op.getOutputMap(0))))
    return failure();
  for (unsigned a = 0; a < plan.axes.size(); ++a) {
    bool row = llvm::any_of(anchorReadsM.getResults(), [&](AffineExpr e) {
      return cast<AffineDimExpr>(e).getPosition() == a;
    });
    if (row)
      rowAxes.push_back(a);
    else if (a != kAxis)
      valueAxes.push_back(a);
  }

  // The inlined element-wise producers go into the fused computes too.
  FailureOr<ComputeOp> mi = inlineNamedProducers(rw, max.op, inlined, false);
  if (failed(mi))
    return failure();
  max.op = *mi;
  return success();
}

/// The Ls: sums that read M, each only in its factor exp(u - h(M)).
LogicalResult OnlineSoftmaxBuilder::resolveSums() {
  ArrayRef<StringAttr> names = schedule.getOnline();
  Value mOut = max.op.getOutputs()[0];
  AffineMap anchorReadsM = anchor.getInputMap(anchorMInput);
  for (StringAttr name : names.drop_front()) {
    FailureOr<ComputeOp> l = findFused(name);
    if (failed(l))
      return failure();
    if (l->getCombiner() != CombinerKind::sum || l->getOutputs().size() != 1)
      return err() << "'" << name.getValue()
                   << "' must be a sum with one output";
    if (l->getScheduleAttr())
      return err() << "'" << name.getValue()
                   << "' has its own schedule; it runs in "
                   << quotedName(anchor) << "'s kernel";
    FailureOr<ComputeOp> li = inlineNamedProducers(rw, *l, inlined, false);
    if (failed(li))
      return failure();
    Fused f{*li, {}};
    std::optional<unsigned> lm;
    for (auto [i, in] : llvm::enumerate(f.op.getInputs()))
      if (in == mOut)
        lm = i;
    if (!lm)
      return err() << "'" << name.getValue() << "' does not read '"
                   << names.front().getValue() << "'";
    if (failed(mapAxes(f, anchorReadsM, f.op.getInputMap(*lm))))
      return failure();
    OnlineTerm t;
    if (failed(analyzeTerm(anchor, f.op, *lm, names.front().getValue(), t)))
      return failure();
    sums.push_back(f);
    sumTerms.push_back(t);
  }
  return success();
}

/// The kernel computes M and the sums where the anchor is: a sum written
/// after it moves up, if nothing between touches its operands.
LogicalResult OnlineSoftmaxBuilder::moveSumsBeforeAnchor() {
  SmallVector<ComputeOp> all{max.op};
  for (Fused &f : sums)
    all.push_back(f.op);
  for (ComputeOp c : all) {
    if (c->isBeforeInBlock(anchor))
      continue;
    if (c == max.op)
      return err() << quotedName(c) << " comes after " << quotedName(anchor)
                   << ", which reads it";
    // A sum after the anchor moves up into its kernel: nothing between may
    // touch what it reads or writes.
    SmallVector<Value> operands(c.getInputs());
    llvm::append_range(operands, c.getOutputs());
    for (Operation *op = anchor->getNextNode(); op != c.getOperation();
         op = op->getNextNode()) {
      bool fusedHere = llvm::any_of(sums, [&](Fused &f) { return f.op == op; });
      if (!fusedHere && llvm::any_of(op->getOperands(), [&](Value v) {
            return llvm::is_contained(operands, v);
          }))
        return err() << quotedName(c) << " comes after " << quotedName(anchor)
                     << ", and '" << op->getName()
                     << "' between them uses its operands";
    }
    // Before the anchor, where the kernel computes it: the epilogue
    // consumer's fusion then sees nothing between.
    c->moveBefore(anchor);
  }
  return success();
}

/// The anchor's summand: P * W, P holding the exp, W an input's element
/// that does not read M; P is computed per (row, key), so it must not
/// depend on the value axes.
LogicalResult OnlineSoftmaxBuilder::resolveValueFactor() {
  Block &body = anchor.getBody().front();
  Value yielded = body.getTerminator()->getOperand(0);
  auto mul = yielded.getDefiningOp<arith::MulFOp>();
  llvm::SetVector<Operation *> mSlice = forwardSlice(anchorTerm.m);
  auto readsM = [&](Value v) {
    return v == anchorTerm.m || mSlice.contains(v.getDefiningOp());
  };
  if (!mul || readsM(mul.getLhs()) == readsM(mul.getRhs()))
    return err() << quotedName(anchor)
                 << "'s summand must be a product P * V of the softmax "
                    "factor and a factor that does not read '"
                 << schedule.getOnline().front().getValue() << "'";
  pValue = readsM(mul.getLhs()) ? mul.getLhs() : mul.getRhs();
  wValue = readsM(mul.getLhs()) ? mul.getRhs() : mul.getLhs();
  Value w = wValue;
  if (auto ext = w.getDefiningOp<arith::ExtFOp>())
    w = ext.getIn();
  auto wArg = dyn_cast<BlockArgument>(w);
  if (!wArg || wArg.getOwner() != &body)
    return err() << quotedName(anchor)
                 << "'s value factor must be an input's element (or its "
                    "arith.extf)";
  wInput = wArg.getArgNumber();
  SmallVector<Value> work{pValue};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      for (AffineExpr e : anchor.getInputMap(arg.getArgNumber()).getResults())
        for (unsigned a : valueAxes)
          if (e.isFunctionOfDim(a))
            return err() << "the softmax factor of " << quotedName(anchor)
                         << " reads input #" << arg.getArgNumber()
                         << " along value axis '" << plan.axes[a].getName()
                         << "'";
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto idx = dyn_cast<IndexOp>(def))
      for (unsigned a : valueAxes)
        if (plan.axes[a].getName() == idx.getAxis())
          return err() << "the softmax factor of " << quotedName(anchor)
                       << " reads the index of value axis '" << idx.getAxis()
                       << "'";
    if (seen.insert(def).second)
      llvm::append_range(work, dependencies(def));
  }
  return success();
}

/// A producer of M's input attached at the keys: the scores, per k-step.
LogicalResult OnlineSoftmaxBuilder::resolveScores() {
  StringRef mName = schedule.getOnline().front().getValue();
  for (AttachAttr at : schedule.getComputeAt()) {
    if (at.getAxis().getValue() != plan.axes[kAxis].getName())
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' must be at the key axis '"
                   << plan.axes[kAxis].getName()
                   << "' (computed per k-step)";
    if (scores)
      return err() << "attaches one producer at the keys (the scores)";
    FailureOr<ComputeOp> s = findFused(at.getCompute());
    if (failed(s))
      return failure();
    Value sOut = s->getOutputs()[0];
    std::optional<unsigned> readBy;
    for (auto [i, in] : llvm::enumerate(max.op.getInputs()))
      if (in == sOut)
        readBy = i;
    if (!readBy || s->getOutputs().size() != 1 ||
        !(*s)->isBeforeInBlock(max.op))
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' must produce what '" << mName << "' reads, before it";
    if (s->getScheduleAttr())
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' has its own schedule";
    // Its spatial axes are the max's at the point it reads them.
    Fused f{*s, {}};
    AffineMap out = s->getOutputMap(0), read = max.op.getInputMap(*readBy);
    f.anchorAxis.assign(s->getAxisList().size(), -1);
    for (auto [r, e] : llvm::enumerate(out.getResults())) {
      auto mine = dyn_cast<AffineDimExpr>(e);
      auto theirs = dyn_cast<AffineDimExpr>(read.getResult(r));
      if (!mine || !theirs)
        return err() << "compute_at '" << at.getCompute().getValue()
                     << "': its output and its reads must be at plain axes";
      f.anchorAxis[mine.getPosition()] = max.anchorAxis[theirs.getPosition()];
    }
    for (auto [a, axis] : llvm::enumerate(s->getAxisList())) {
      if (axis.isSpatial() && f.anchorAxis[a] < 0)
        return err() << "compute_at '" << at.getCompute().getValue()
                     << "': axis '" << axis.getName()
                     << "' does not index its output";
      if (f.anchorAxis[a] < 0 && axis.isDynamic())
        return err() << "compute_at '" << at.getCompute().getValue()
                     << "': its reduce axis '" << axis.getName()
                     << "' (the head) has a dynamic extent; each key step "
                        "reduces it whole, so it must be static";
    }
    if (s->getCombiner() && *s->getCombiner() != CombinerKind::sum)
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' must be element-wise or a sum";
    scores = f;
  }
  return success();
}

/// Causal-style masks: a key tile is skipped only if every fused body masks
/// it; `causal` is then the largest offset c of `j <= i + c`.
void OnlineSoftmaxBuilder::resolveCausalMask() {
  std::optional<unsigned> maskedRowAxis;
  for (unsigned a : rowAxes)
    if (plan.tile[a] > 1)
      maskedRowAxis = a;
  if (!maskedRowAxis)
    return;
  auto offsetOf = [&](const Fused &f, Value x) -> std::optional<int64_t> {
    int k = -1, r = -1;
    for (auto [a, aa] : llvm::enumerate(f.anchorAxis)) {
      if (aa == static_cast<int>(kAxis))
        k = a;
      if (aa == static_cast<int>(*maskedRowAxis))
        r = a;
    }
    if (k < 0 || r < 0)
      return std::nullopt;
    return causalOffset(f.op, x, k, r);
  };
  Block &mb = max.op.getBody().front();
  std::optional<int64_t> c = offsetOf(max, mb.getTerminator()->getOperand(0));
  auto subLhs = [](const OnlineTerm &t) {
    return cast<arith::SubFOp>(*t.hm.getUsers().begin()).getLhs();
  };
  auto combine = [&](std::optional<int64_t> other) {
    if (!c || !other)
      c = std::nullopt;
    else
      c = std::max(*c, *other);
  };
  for (auto [f, t] : llvm::zip(sums, sumTerms))
    combine(offsetOf(f, subLhs(t)));
  combine(offsetOf(self, subLhs(anchorTerm)));
  causal = c;
}
