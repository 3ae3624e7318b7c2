//===- OnlineSoftmax.cpp - the online-softmax rewrite in ext-apply-schedule ==//
//
// A schedule's `online = ["M", "L", ...]` fuses a max reduction M and sums
// over the same reduce axis j into the scheduled compute (a sum over j, the
// "anchor"), FlashAttention's way: one pass over j in k-steps, where each
// step
//
//   m_new  = max(m, max_j g(S))                      (M's body)
//   alpha  = exp(h(m) - h(m_new))                    (per fused sum)
//   l      = alpha * l + sum_j exp(u - h(m_new)) * w (each L)
//   acc    = alpha * acc + sum_j P * V               (the anchor, P = exp(..))
//
// This is exact because every summand that reads M does so only in a factor
// exp(u - h(M)) (or exp2): exp(u - h(m_final)) = exp(u - h(m_k)) *
// exp(h(m_k) - h(m_final)), the product of the later steps' alphas. The pass
// checks that shape and builds the tile-level kernel: a producer of the
// scores attached at j (compute_at) runs per k-step on tensor cores under
// `mma` into a fragment, which the row max and the sums fold in registers
// (ext.tile_compute's fragment reduction) and P is computed from; without
// tensor cores, or with a row split over warps, the scores go through a
// shared tile instead. With the scores in registers, the row statistics
// are registers too (fragments of the MMA layout's row slice, each lane
// holding its rows' values), P is computed once into a fragment that the
// sums whose summand it is fold; otherwise the statistics live in shared
// memory. P is written in the value operand's type to a shared tile for
// the second GEMM, the accumulator stays in registers, and the windows
// that move with the keys are copied `stages - 1` steps ahead; the
// epilogue consumer (reverse_compute_at) reads M and the Ls where they
// are. Nothing of the size of S reaches global memory.
//
// A row whose scores seen so far are all -inf contributes zero terms (its
// statistics are evaluated at 0 instead of -inf), so masked prefixes do not
// poison later steps with NaN; a row with no finite score at all ends with
// zero sums, where the unfused computes would give NaN (FlashAttention's
// behaviour).
//
// A key tile that a causal-style mask in every fused body (`select(j <= i +
// c, x, -inf)`, read off the IR) hides from the whole row tile is skipped.
//
//===----------------------------------------------------------------------===//

#include "TilingPlan.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/StageSelect.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

/// How M is read in a fused sum's body: `exp(u - h(m))` and the ops from m
/// to it.
struct OnlineTerm {
  /// The body's argument that is M's element.
  BlockArgument m;
  /// h(m): the subtrahend (m itself, or ops of m and constants).
  Value hm;
  /// The ops computing h(m) from m, in order.
  SmallVector<Operation *> hOps;
  /// The exp(u - h(m)) value, and whether it is exp2 (FlashAttention's
  /// form, the scale times log2(e) folded into the scores): the rescale is
  /// then exp2 too.
  Value exp;
  bool base2 = false;
};

/// What `op` reads: its operands and the values its regions use from
/// above (an scf.if's branches).
SmallVector<Value> dependencies(Operation *op) {
  SmallVector<Value> out(op->getOperands());
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  llvm::append_range(out, above);
  return out;
}

/// Values in `block` that depend on `root`, in block order.
/// The ops of `root`'s block that depend on it (a use inside an op's
/// region counts as a use by that op).
llvm::SetVector<Operation *> forwardSlice(Value root) {
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

/// Checks that `c`'s summand reads M (its input `mInput`) only in one
/// factor exp(u - h(M)) and fills `term`; reports at the anchor otherwise.
LogicalResult analyzeTerm(ComputeOp anchor, ComputeOp c, unsigned mInput,
                          StringRef mName, OnlineTerm &term) {
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

/// For a body whose term x (`masked`: g(S) for M, u for a sum) passes
/// through `select(cond, y, -inf)` with cond `j <= i + c` (j the compute's
/// key axis `kAxis`, i its axis `rowAxis`): c, so key tiles past every row
/// of a row tile can be skipped.
std::optional<int64_t> causalOffset(ComputeOp c, Value masked, unsigned kAxis,
                                    unsigned rowAxis) {
  // Walk back through element-wise ops of one operand to the select.
  for (Value v = masked; v;) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
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
      return std::nullopt;
    }
    if (!isNegInf(falseValue))
      return std::nullopt;
    auto cmp = cond.getDefiningOp<arith::CmpIOp>();
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
  return std::nullopt;
}

/// One compute fused into the kernel, seen from the anchor's tile.
struct Fused {
  mutable ComputeOp op;
  /// Per axis: the anchor's axis at the same point, or -1 for an axis of
  /// its own (a score GEMM's reduce axis), which each tile covers whole.
  SmallVector<int> anchorAxis;
};

/// Where an input of a fused compute comes from inside the kernel.
struct TileOperand {
  Value buffer;
  /// Over the tile compute's axes (the compute's, less the dropped ones).
  AffineMap map;
};

class OnlineSoftmaxBuilder {
public:
  OnlineSoftmaxBuilder(RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                       TilingPlan &plan, FragmentLayoutAttrInterface layout,
                       ArrayRef<StringAttr> inlined,
                       const ApplyScheduleOptions &options)
      : rw(rw), anchor(op), schedule(schedule), plan(plan), layout(layout),
        inlined(inlined), options(options), ctx(op.getContext()), loc(op.getLoc()) {}

  FailureOr<KernelOp> build();

private:
  InFlightDiagnostic err() {
    return anchor.emitOpError() << "schedule: online: ";
  }
  LogicalResult resolve();
  /// `f`'s axes as the anchor's: its spatial axes by where it and the
  /// anchor read M (`readByF`, `readByAnchor`), its reduce axis the keys.
  LogicalResult mapAxes(Fused &f, AffineMap readByAnchor, AffineMap readByF);
  bool kept(const Fused &f, unsigned axis) const;
  SmallVector<unsigned> keptAxes(const Fused &f) const;
  /// The window of `f`'s input `i` at this tile and k-step, as a tile
  /// operand: a shared copy (`copy`) or a view of global memory.
  FailureOr<TileOperand> inputTile(const Fused &f, unsigned i, bool copy,
                                   ArrayRef<unsigned> over = {});
  using CopyCacheKey = std::pair<void *, SmallVector<int64_t>>;
  /// A window that moves with the keys under `stages`: its N buffers, its
  /// copy for every prefetch, and this step's buffer.
  TileOperand stagedTile(const Fused &f, unsigned i, AffineMap local,
                         CopyCacheKey cacheKey);
  /// bufs[which], as a chain of selects (ext-gpu-reuse-shared-memory makes
  /// it one view once the buffers are placed).
  /// `memref` read by `f` through `map` at this tile (and k-step): a view
  /// without the dimensions the tile fixes (those of a tile of 1,
  /// constants), the window's origin in it and its shape.
  struct Window {
    Value view;
    SmallVector<Value> origins;
    SmallVector<int64_t> shape;
  };
  Window window(const Fused &f, Value memref, AffineMap map);
  /// The tile operand of value `v` read by `f` through `map` if it is a
  /// buffer of the kernel (M's running max, an L, the scores).
  std::optional<TileOperand> kernelBuffer(const Fused &f, Value v,
                                          AffineMap map,
                                          ArrayRef<unsigned> over = {});
  /// `map` over the tile compute of `f` on axes `over` (its kept axes by
  /// default), without the dimensions the tile fixes.
  AffineMap localMap(const Fused &f, AffineMap map,
                     SmallVectorImpl<int64_t> *shape = nullptr,
                     ArrayRef<unsigned> over = {});
  Value origin(const Fused &f, AffineExpr e);
  TileComputeOp tileCompute(const Fused &f, ArrayRef<unsigned> axes,
                            ArrayRef<int64_t> threads, ValueRange bounds,
                            ArrayRef<TileOperand> ins,
                            ArrayRef<TileOperand> outs,
                            CombinerKindAttr combiner, bool accumulate,
                            FragmentLayoutAttrInterface layout,
                            bool allSpatial = false);
  /// Clones into `tc`'s (empty) body the ops of `f`'s body that `results`
  /// need, `args[k]` standing for the body's argument k, and yields
  /// `finish(cloned results)`.
  void fillBody(const Fused &f, TileComputeOp tc, ArrayRef<int> args,
                ArrayRef<Value> results,
                function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>)>
                    finish = nullptr);
  Value cloneSlice(OpBuilder &b, const Fused &f, ArrayRef<unsigned> axes,
                   Value v, IRMapping &map);
  /// Whether `a` in `fa`'s body and `b` in `fb`'s compute the same value at
  /// each point of the tile: the same ops over inputs that are the same tile
  /// operands (`argsX[k]` the operand in `insX` of body argument k, both
  /// over the same axes) and indices of the same anchor axes.
  bool sameValue(const Fused &fa, ArrayRef<int> argsA,
                 ArrayRef<TileOperand> insA, Value a, const Fused &fb,
                 ArrayRef<int> argsB, ArrayRef<TileOperand> insB, Value b);
  SmallVector<int64_t> rowThreads(int64_t rows, int64_t keys);
  /// Whether V's copy waits for the scores, so that V takes K's shared
  /// bytes (see build()).
  bool valueAfterScores();
  MemRefType sharedType(ArrayRef<int64_t> shape, Type elem) {
    return sharedTileType(shape, elem, {});
  }
  /// A shared tile, allocated at the start of the kernel's body (one buffer
  /// for the whole kernel; shared-memory reuse packs them by liveness).
  /// A 2-D tile is swizzled for wgmma when `swizzle` is given, else its
  /// rows are padded by 16 bytes, which spreads the rows that threads (and
  /// ldmatrix) read together over the banks.
  Value allocShared(const Twine &what, ArrayRef<int64_t> shape, Type elem,
                    SwizzleAttr swizzle = {}) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(kernelBody);
    SmallVector<StorageAlignAttr> aligns;
    int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
    // (A row of exactly 16 bytes stays unpadded: the rule cannot add one
    // whole row's bytes, and its rows of 4 banks conflict little.)
    if (!swizzle && shape.size() == 2 && shape.back() > 1 && bytes <= 16 &&
        shape.back() * bytes > 16 && (shape.back() * bytes) % 16 == 0)
      aligns.push_back(StorageAlignAttr::get(ctx, 0, shape.back(), 16 / bytes));
    ArrayAttr alignAttr =
        aligns.empty() ? ArrayAttr()
                       : rw.getArrayAttr(SmallVector<Attribute>(aligns.begin(),
                                                                aligns.end()));
    return AllocSharedOp::create(rw, phaseLoc(loc, what),
                                 sharedTileType(shape, elem, aligns),
                                 alignAttr, swizzle);
  }
  /// Under wgmma, the swizzle its descriptors read for a 2-D tile; null
  /// otherwise.
  SwizzleAttr operandSwizzle(ArrayRef<int64_t> shape, Type elem) const {
    if (!warpgroup || shape.size() != 2)
      return {};
    return wgmmaOperandSwizzle(ctx, shape.back(), elem);
  }
  Value allocFragment(MemRefType type, ArrayRef<int64_t> threads,
                      FragmentLayoutAttrInterface fragLayout) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(kernelBody);
    return AllocFragmentOp::create(rw, loc, type,
                                   rw.getDenseI64ArrayAttr(threads), fragLayout);
  }

  RewriterBase &rw;
  ComputeOp anchor;
  ScheduleAttr schedule;
  TilingPlan &plan;
  FragmentLayoutAttrInterface layout;
  /// What the schedule inlines (into the anchor already, here into the
  /// fused computes too).
  ArrayRef<StringAttr> inlined;
  const ApplyScheduleOptions &options;
  MLIRContext *ctx;
  Location loc;

  unsigned kAxis = 0;
  Fused self, max;
  SmallVector<Fused> sums;
  std::optional<Fused> scores; // attached at j
  SmallVector<OnlineTerm> sumTerms;
  OnlineTerm anchorTerm;
  unsigned anchorMInput = 0;
  /// The anchor's summand as P * W: the operand of its product that holds
  /// the exp (P) and the other (W, over the value axes).
  Value pValue, wValue;
  unsigned wInput = 0;
  std::optional<int64_t> causal;
  /// Anchor axes of the rows (M's output) and of the values.
  SmallVector<unsigned> rowAxes, valueAxes;

  // Per tile / k-step state while building.
  TileFrame frame;
  Value kOffset, kValid;
  Value mBuf, mEffBuf, mNewBuf, sBuf;
  /// The scores in registers (the MMA fragment), read in place by the row
  /// reductions and P when its rows each sit in one warp (warps [WM, 1]):
  /// then nothing of the scores goes through shared memory.
  Value sFrag;
  FragmentLayoutAttrInterface sFragLayout;
  SmallVector<int64_t> sFragThreads;
  SmallVector<Value> sumBufs;
  Value alphaAcc;
  /// The key loop (copies that do not move with the keys go before it) and
  /// the shared copies made so far, by input and window.
  Operation *keyLoop = nullptr;
  Block *kernelBody = nullptr;
  /// With `stages = N >= 2`, the windows that move with the keys are
  /// copied N - 1 steps ahead into N buffers: the copies of each step are
  /// made before `commits[s]` (the prologue's steps, then the loop's
  /// prefetch), the step's buffer picked by `stage`.
  struct Prefetch {
    Operation *commit;
    Value offset, active, stage;
  };
  SmallVector<Prefetch> prefetches;
  Value stage;
  /// Both GEMMs on sm_90a's warpgroup MMA: their shared operands swizzled.
  bool warpgroup = false;
  std::map<std::pair<void *, SmallVector<int64_t>>, Value> copies;
};

bool OnlineSoftmaxBuilder::kept(const Fused &f, unsigned axis) const {
  int a = f.anchorAxis[axis];
  if (a < 0)
    return true;
  return static_cast<unsigned>(a) == kAxis || plan.tile[a] > 1;
}

SmallVector<unsigned> OnlineSoftmaxBuilder::keptAxes(const Fused &f) const {
  SmallVector<unsigned> out;
  for (unsigned a = 0; a < f.anchorAxis.size(); ++a)
    if (kept(f, a))
      out.push_back(a);
  return out;
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

LogicalResult OnlineSoftmaxBuilder::resolve() {
  ArrayRef<StringAttr> names = schedule.getOnline();
  if (!plan.kAxis || plan.useFragments == false)
    return err() << quotedName(anchor)
                 << " must be a reduction over the keys accumulated in "
                    "registers (one reduce axis, on one thread)";
  kAxis = *plan.kAxis;
  if (anchor.getCombiner() != CombinerKind::sum || anchor.getOutputs().size() != 1)
    return err() << quotedName(anchor)
                 << " must be a sum with one output (the accumulator)";
  for (int64_t e : plan.extents)
    if (ShapedType::isDynamic(e))
      return err() << "dynamic extents are not supported yet";
  if (!isa<DataParallelAttr>(schedule.getDecompositionOrDefault()))
    return err() << "each tile needs all of its keys: the decomposition must "
                    "be data_parallel";
  if (llvm::any_of(plan.outputCache, [](CacheAttr c) { return bool(c); }))
    return err() << "the output cannot be staged through shared memory";

  self.op = anchor;
  for (unsigned a = 0; a < plan.axes.size(); ++a)
    self.anchorAxis.push_back(a);

  auto find = [&](StringAttr name) -> FailureOr<ComputeOp> {
    return findNamedCompute(anchor, name.getValue(), [&]() {
      return err() << "'" << name.getValue() << "': ";
    });
  };
  FailureOr<ComputeOp> m = find(names.front());
  if (failed(m))
    return failure();
  max.op = *m;
  if (max.op.getCombiner() != CombinerKind::max ||
      max.op.getOutputs().size() != 1)
    return err() << "'" << names.front().getValue()
                 << "' must be a max reduction with one output";
  if (max.op.getScheduleAttr())
    return err() << "'" << names.front().getValue()
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
                 << names.front().getValue() << "'";
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
  for (StringAttr name : names.drop_front()) {
    FailureOr<ComputeOp> l = find(name);
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
  if (failed(analyzeTerm(anchor, anchor, anchorMInput,
                         names.front().getValue(), anchorTerm)))
    return failure();
  for (ComputeOp c : [&] {
             SmallVector<ComputeOp> all{max.op};
             for (Fused &f : sums)
               all.push_back(f.op);
             return all;
           }()) {
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

  // The anchor's summand: P * W, P holding the exp, W not reading M.
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
                 << names.front().getValue() << "'";
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
  // P must not depend on the value axes: it is computed per (row, key).
  {
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
                           << " along value axis '"
                           << plan.axes[a].getName() << "'";
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (auto idx = dyn_cast<IndexOp>(def))
        for (unsigned a : valueAxes)
          if (plan.axes[a].getName() == idx.getAxis())
            return err() << "the softmax factor of " << quotedName(anchor)
                         << " reads the index of value axis '"
                         << idx.getAxis() << "'";
      if (seen.insert(def).second)
        llvm::append_range(work, dependencies(def));
    }
  }

  // A producer of an input attached at the keys: the scores, per k-step.
  for (AttachAttr at : schedule.getComputeAt()) {
    if (at.getAxis().getValue() != plan.axes[kAxis].getName())
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' must be at the key axis '"
                   << plan.axes[kAxis].getName()
                   << "' (computed per k-step)";
    if (scores)
      return err() << "attaches one producer at the keys (the scores)";
    FailureOr<ComputeOp> s = find(at.getCompute());
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
                   << "' must produce what '" << names.front().getValue()
                   << "' reads, before it";
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
    for (auto [a, axis] : llvm::enumerate(s->getAxisList()))
      if (axis.isSpatial() && f.anchorAxis[a] < 0)
        return err() << "compute_at '" << at.getCompute().getValue()
                     << "': axis '" << axis.getName()
                     << "' does not index its output";
    if (s->getCombiner() && *s->getCombiner() != CombinerKind::sum)
      return err() << "compute_at '" << at.getCompute().getValue()
                   << "' must be element-wise or a sum";
    scores = f;
  }

  // Causal-style masks: skip a key tile only if every fused body masks it.
  std::optional<unsigned> rowAxis;
  for (unsigned a : rowAxes)
    if (plan.tile[a] > 1)
      rowAxis = a;
  if (rowAxis) {
    auto offsetOf = [&](const Fused &f, Value x) -> std::optional<int64_t> {
      int k = -1, r = -1;
      for (auto [a, aa] : llvm::enumerate(f.anchorAxis)) {
        if (aa == static_cast<int>(kAxis))
          k = a;
        if (aa == static_cast<int>(*rowAxis))
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
  return success();
}

Value OnlineSoftmaxBuilder::origin(const Fused &f, AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return constIndex(rw, loc, c.getValue());
  unsigned pos = cast<AffineDimExpr>(e).getPosition();
  int a = f.anchorAxis[pos];
  if (a < 0)
    return constIndex(rw, loc, 0);
  if (static_cast<unsigned>(a) == kAxis)
    return kOffset;
  return frame.offsets[a];
}

AffineMap OnlineSoftmaxBuilder::localMap(const Fused &f, AffineMap map,
                                         SmallVectorImpl<int64_t> *shape,
                                         ArrayRef<unsigned> over) {
  SmallVector<unsigned> axes =
      over.empty() ? keptAxes(f) : SmallVector<unsigned>(over);
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || !kept(f, d.getPosition()))
      continue;
    unsigned local = llvm::find(axes, d.getPosition()) - axes.begin();
    results.push_back(getAffineDimExpr(local, ctx));
    if (shape) {
      int a = f.anchorAxis[d.getPosition()];
      shape->push_back(a < 0 ? f.op.getAxisList()[d.getPosition()].getExtent()
                             : plan.tile[a]);
    }
  }
  return AffineMap::get(axes.size(), 0, results, ctx);
}

OnlineSoftmaxBuilder::Window
OnlineSoftmaxBuilder::window(const Fused &f, Value memref, AffineMap map) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> offs, sizes, strides;
  SmallVector<int64_t> reducedShape;
  Window w;
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    bool keep = dim && kept(f, dim.getPosition());
    Value o = origin(f, e);
    strides.push_back(rw.getIndexAttr(1));
    if (keep) {
      offs.push_back(rw.getIndexAttr(0));
      sizes.push_back(rw.getIndexAttr(type.getDimSize(d)));
      w.origins.push_back(o);
      reducedShape.push_back(type.getDimSize(d));
      int a = f.anchorAxis[dim.getPosition()];
      w.shape.push_back(a < 0
                            ? f.op.getAxisList()[dim.getPosition()].getExtent()
                            : plan.tile[a]);
    } else {
      offs.push_back(o);
      sizes.push_back(rw.getIndexAttr(1));
    }
  }
  w.view = memref;
  if (reducedShape.size() != static_cast<size_t>(type.getRank()))
    w.view = memref::SubViewOp::create(
        rw, loc,
        cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
            reducedShape, type, offs, sizes, strides)),
        memref, offs, sizes, strides);
  return w;
}

FailureOr<TileOperand> OnlineSoftmaxBuilder::inputTile(
    const Fused &f, unsigned i, bool copy, ArrayRef<unsigned> over) {
  Value input = f.op.getInputs()[i];
  AffineMap map = f.op.getInputMap(i);
  auto type = cast<MemRefType>(input.getType());
  // One copy per window: before the key loop when it does not move with
  // the keys.
  SmallVector<int64_t> key;
  bool moves = false;
  for (AffineExpr e : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      key.push_back(-100 - c.getValue());
      continue;
    }
    if (!isa<AffineDimExpr>(e))
      return err() << quotedName(f.op) << " reads input #" << i << " at "
                   << AffineMapAttr::get(map)
                   << "; a fused compute reads at plain axes or constants";
    int a = f.anchorAxis[cast<AffineDimExpr>(e).getPosition()];
    moves |= a == static_cast<int>(kAxis);
    key.push_back(a);
  }
  AffineMap local = localMap(f, map, nullptr, over);
  auto cacheKey = std::make_pair(input.getAsOpaquePointer(), key);
  if (copy)
    if (auto it = copies.find(cacheKey); it != copies.end())
      return TileOperand{it->second, local};
  OpBuilder::InsertionGuard guard(rw);
  if (copy && !moves && keyLoop)
    rw.setInsertionPoint(keyLoop);
  if (copy && moves && !prefetches.empty())
    return stagedTile(f, i, local, cacheKey);

  Window w = window(f, input, map);
  if (!copy)
    return TileOperand{tileView(rw, loc, w.view, w.origins, w.shape), local};
  Value buf = allocShared("shared tile of " + quotedName(f.op) + " input " +
                              Twine(i),
                          w.shape, type.getElementType(),
                          operandSwizzle(w.shape, type.getElementType()));
  CopyOp::create(rw,
                 phaseLoc(loc, "copy of " + quotedName(f.op) + " input " +
                                   Twine(i) + " into shared memory"),
                 w.view, w.origins, buf, Value(), schedule.getVector(),
                 CopyStagingAttr(), 1, DenseBoolArrayAttr());
  copies[cacheKey] = buf;
  return TileOperand{buf, local};
}

TileOperand OnlineSoftmaxBuilder::stagedTile(const Fused &f, unsigned i,
                                             AffineMap local,
                                             CopyCacheKey cacheKey) {
  Value input = f.op.getInputs()[i];
  AffineMap map = f.op.getInputMap(i);
  auto type = cast<MemRefType>(input.getType());
  int64_t stages = schedule.getStages();
  SmallVector<Value> bufs;
  Value step = kOffset;
  CopyStagingAttr staging = CopyStagingAttr::get(
      ctx, options.asyncCopies && schedule.getAsync() ? CopyStaging::async
                                                      : CopyStaging::registers);
  for (const Prefetch &p : prefetches) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(p.commit);
    kOffset = p.offset;
    Window w = window(f, input, map);
    if (bufs.empty())
      for (int64_t b = 0; b < stages; ++b)
        bufs.push_back(allocShared(
            "shared tile of " + quotedName(f.op) + " input " + Twine(i) +
                ", stage " + Twine(b),
            w.shape, type.getElementType(),
            operandSwizzle(w.shape, type.getElementType())));
    CopyOp::create(rw,
                   phaseLoc(loc, "staged copy of " + quotedName(f.op) +
                                     " input " + Twine(i) +
                                     " into shared memory"),
                   w.view, w.origins, selectStage(rw, loc, bufs, p.stage), p.active,
                   schedule.getVector(), staging, 1, DenseBoolArrayAttr());
  }
  kOffset = step;
  // This step's buffer, picked at the top of the loop's body.
  Value cur;
  {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfterValue(stage);
    cur = selectStage(rw, loc, bufs, stage);
  }
  copies[cacheKey] = cur;
  return TileOperand{cur, local};
}


std::optional<TileOperand>
OnlineSoftmaxBuilder::kernelBuffer(const Fused &f, Value v, AffineMap map,
                                   ArrayRef<unsigned> over) {
  Value buf;
  if (v == max.op.getOutputs()[0])
    buf = mEffBuf;
  else if (scores && v == scores->op.getOutputs()[0])
    buf = sFrag ? sFrag : sBuf;
  else
    for (auto [l, sb] : llvm::zip(sums, sumBufs))
      if (v == l.op.getOutputs()[0])
        buf = sb;
  if (!buf)
    return std::nullopt;
  return TileOperand{buf, localMap(f, map, nullptr, over)};
}

SmallVector<int64_t> OnlineSoftmaxBuilder::rowThreads(int64_t rows,
                                                      int64_t keys) {
  int64_t block = schedule.getNumThreads();
  // As few threads on the keys as the rows allow: each thread walks its
  // keys in registers, and the combine across threads is short.
  for (int64_t t = 1; t <= std::min<int64_t>(32, keys); t *= 2)
    if (keys % t == 0 && block % t == 0 && rows % (block / t) == 0)
      return {block / t, t};
  return {};
}

bool OnlineSoftmaxBuilder::valueAfterScores() {
  const std::optional<ChipInfo> &chip = options.device.chip;
  if (!prefetches.empty() || !scores || !chip ||
      !chip->maxSharedBytesPerBlock ||
      scores->op.getCombiner() != CombinerKind::sum)
    return false;
  // Tile sizes from the plan, rows padded by at most 16 bytes.
  auto bytes = [](int64_t r, int64_t c, Type t) {
    return r * (c * static_cast<int64_t>(t.getIntOrFloatBitWidth() / 8) + 16);
  };
  int64_t rows = 1, keys = plan.tile[kAxis], depth = 1, values = 1;
  for (unsigned a : rowAxes)
    rows *= plan.tile[a];
  for (unsigned a : valueAxes)
    values *= plan.tile[a];
  for (auto [a, axis] : llvm::enumerate(scores->op.getAxisList()))
    if (scores->anchorAxis[a] < 0)
      depth *= axis.getExtent();
  // The scores' operands: the one read at the keys is K's tile (keys x
  // depth), the others Q's (rows x depth).
  int64_t qk = 0;
  for (auto [i, in] : llvm::enumerate(scores->op.getInputs())) {
    Type t = cast<MemRefType>(in.getType()).getElementType();
    bool atKeys =
        llvm::any_of(scores->op.getInputMap(i).getResults(), [&](AffineExpr e) {
          auto d = dyn_cast<AffineDimExpr>(e);
          return d &&
                 scores->anchorAxis[d.getPosition()] == static_cast<int>(kAxis);
        });
    if (t.isIntOrFloat())
      qk += bytes(atKeys ? keys : rows, depth, t);
  }
  Type wElem =
      cast<MemRefType>(anchor.getInputs()[wInput].getType()).getElementType();
  Type pElem =
      isa_and_nonnull<MmaLayoutAttr>(layout) ? wElem : pValue.getType();
  int64_t total = qk + bytes(keys, values, wElem) + bytes(rows, keys, pElem);
  return total > static_cast<int64_t>(chip->maxSharedBytesPerBlock);
}

Value OnlineSoftmaxBuilder::cloneSlice(OpBuilder &b, const Fused &f,
                                       ArrayRef<unsigned> axes, Value v,
                                       IRMapping &map) {
  if (Value m = map.lookupOrNull(v))
    return m;
  Operation *def = v.getDefiningOp();
  assert(def && "block arguments are mapped up front");
  if (auto idx = dyn_cast<IndexOp>(def)) {
    unsigned pos = *f.op.getAxisPosition(idx.getAxis());
    int a = f.anchorAxis[pos];
    Value offset = a < 0 ? Value()
                   : static_cast<unsigned>(a) == kAxis ? kOffset
                                                       : frame.offsets[a];
    Value result;
    if (!kept(f, pos)) {
      result = offset;
    } else {
      result = IndexOp::create(b, idx.getLoc(), b.getIndexType(), idx.getAxis());
      if (offset)
        result = arith::AddIOp::create(b, idx.getLoc(), result, offset);
    }
    map.map(v, result);
    return result;
  }
  for (Value operand : dependencies(def))
    cloneSlice(b, f, axes, operand, map);
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

bool OnlineSoftmaxBuilder::sameValue(const Fused &fa, ArrayRef<int> argsA,
                                     ArrayRef<TileOperand> insA, Value a,
                                     const Fused &fb, ArrayRef<int> argsB,
                                     ArrayRef<TileOperand> insB, Value b) {
  std::function<LogicalResult(Value, Value)> same =
      [&](Value x, Value y) -> LogicalResult {
    if (x.getType() != y.getType())
      return failure();
    auto ax = dyn_cast<BlockArgument>(x), by = dyn_cast<BlockArgument>(y);
    if (ax || by) {
      if (!ax || !by || argsA[ax.getArgNumber()] < 0 ||
          argsB[by.getArgNumber()] < 0)
        return failure();
      const TileOperand &tx = insA[argsA[ax.getArgNumber()]];
      const TileOperand &ty = insB[argsB[by.getArgNumber()]];
      return success(tx.buffer == ty.buffer && tx.map == ty.map);
    }
    Operation *ox = x.getDefiningOp(), *oy = y.getDefiningOp();
    if (cast<OpResult>(x).getResultNumber() !=
            cast<OpResult>(y).getResultNumber() ||
        ox->getNumRegions() || oy->getNumRegions())
      return failure();
    if (auto ix = dyn_cast<IndexOp>(ox)) {
      auto iy = dyn_cast<IndexOp>(oy);
      return success(iy &&
                     fa.anchorAxis[*fa.op.getAxisPosition(ix.getAxis())] ==
                         fb.anchorAxis[*fb.op.getAxisPosition(iy.getAxis())]);
    }
    return success(OperationEquivalence::isEquivalentTo(
        ox, oy, same, nullptr, OperationEquivalence::IgnoreLocations));
  };
  return succeeded(same(a, b));
}

void OnlineSoftmaxBuilder::fillBody(
    const Fused &f, TileComputeOp tc, ArrayRef<int> args,
    ArrayRef<Value> results,
    function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>)> finish) {
  Block &src = f.op.getBody().front();
  SmallVector<Type> types;
  for (Value in : tc.getInputs())
    types.push_back(cast<MemRefType>(in.getType()).getElementType());
  Block *dst = rw.createBlock(&tc.getBody(), {}, types,
                              SmallVector<Location>(types.size(), loc));
  OpBuilder b = OpBuilder::atBlockBegin(dst);
  IRMapping map;
  for (auto [k, a] : llvm::enumerate(args))
    if (a >= 0)
      map.map(src.getArgument(k), dst->getArgument(a));
  SmallVector<unsigned> axes = keptAxes(f);
  SmallVector<Value> values;
  for (Value r : results)
    values.push_back(cloneSlice(b, f, axes, r, map));
  if (finish)
    values = finish(b, values);
  YieldOp::create(b, loc, values);
}

TileComputeOp OnlineSoftmaxBuilder::tileCompute(
    const Fused &f, ArrayRef<unsigned> axes, ArrayRef<int64_t> threads,
    ValueRange bounds, ArrayRef<TileOperand> ins, ArrayRef<TileOperand> outs,
    CombinerKindAttr combiner, bool accumulate,
    FragmentLayoutAttrInterface tcLayout, bool allSpatial) {
  SmallVector<Attribute> axisAttrs;
  for (unsigned a : axes) {
    AxisAttr axis = f.op.getAxisList()[a];
    int aa = f.anchorAxis[a];
    axisAttrs.push_back(AxisAttr::get(ctx, axis.getName(),
                                      allSpatial ? AxisKind::spatial
                                                 : axis.getKind(),
                                      aa < 0 ? axis.getExtent()
                                             : plan.tile[aa]));
  }
  SmallVector<Value> inVals, outVals;
  SmallVector<AffineMap> maps;
  for (const TileOperand &t : ins) {
    inVals.push_back(t.buffer);
    maps.push_back(t.map);
  }
  for (const TileOperand &t : outs) {
    outVals.push_back(t.buffer);
    maps.push_back(t.map);
  }
  return TileComputeOp::create(
      rw, loc, rw.getArrayAttr(axisAttrs), rw.getDenseI64ArrayAttr(threads),
      bounds, inVals, outVals, rw.getAffineMapArrayAttr(maps), combiner,
      ArrayAttr(), accumulate ? rw.getUnitAttr() : UnitAttr(), tcLayout,
      IntegerAttr());
}

FailureOr<KernelOp> OnlineSoftmaxBuilder::build() {
  if (failed(resolve()))
    return failure();
  anchor = self.op;
  int64_t block = schedule.getNumThreads();

  // Tile shapes: rows (M's output window), keys, values.
  SmallVector<int64_t> rowShape, accShape, accThreads;
  SmallVector<unsigned> accAxes; // anchor axes of the accumulator fragment
  for (unsigned a : rowAxes)
    if (plan.tile[a] > 1)
      rowShape.push_back(plan.tile[a]);
  for (unsigned a : plan.spatialAxes)
    if (plan.tile[a] > 1) {
      accAxes.push_back(a);
      accShape.push_back(plan.tile[a]);
      accThreads.push_back(plan.threads[a]);
    }
  for (unsigned a : plan.spatialAxes)
    if (plan.tile[a] == 1 && plan.threads[a] != 1)
      return err() << "axis '" << plan.axes[a].getName()
                   << "' has a tile of 1 but " << plan.threads[a]
                   << " threads";
  if (rowShape.size() != 1)
    return err() << "one row axis must have a tile larger than 1 (the rows "
                    "of a tile)";
  int64_t rows = rowShape[0], keys = plan.tile[kAxis];
  SmallVector<int64_t> rt = rowThreads(rows, keys);
  if (rt.empty())
    return err() << "no split of the block's " << block
                 << " threads over a " << rows << " x " << keys
                 << " score tile (rows x keys) puts a power of two on the "
                    "keys and divides the rows";
  int64_t rowOnly = block;
  while (rows % rowOnly != 0)
    --rowOnly;
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(layout);
  warpgroup = mma && mma.isWarpgroup();
  if (mma && accAxes.size() != 2)
    return err() << "mma needs the accumulator tile to be rows x values";

  // Kernel with no accumulator across work units: the whole tile is done in
  // its body.
  rw.setInsertionPoint(anchor);
  int64_t numTiles = 1;
  for (int64_t t : plan.tileCounts)
    numTiles *= t;
  FailureOr<TileDecompositionAttrInterface> decomposition =
      resolveDecomposition(anchor, schedule.getDecompositionOrDefault(),
                           numTiles, plan.iters, keys, options);
  if (failed(decomposition))
    return failure();
  auto kernel = KernelOp::create(
      rw, loc, ValueRange(), rw.getDenseI64ArrayAttr(plan.tileCounts), Value(),
      plan.iters, block, *decomposition, schedule.getRaster(),
      schedule.getSwizzle(), CombinerKindAttr(), ArrayAttr(), FloatAttr(),
      DenseI64ArrayAttr());
  unsigned numTileDims = plan.tileCounts.size();
  SmallVector<Type> argTypes(numTileDims + 2, rw.getIndexType());
  Block *body = rw.createBlock(&kernel.getBody(), {}, argTypes,
                               SmallVector<Location>(argTypes.size(), loc));
  SmallVector<Type> epiTypes(numTileDims, rw.getIndexType());
  Block *epilogue = rw.createBlock(&kernel.getEpilogue(), {}, epiTypes,
                                   SmallVector<Location>(numTileDims, loc));
  rw.setInsertionPointToStart(epilogue);
  KernelYieldOp::create(rw, loc, ValueRange());

  rw.setInsertionPointToStart(body);
  kernelBody = body;
  frame = buildFrame(rw, loc, plan, body->getArguments().take_front(numTileDims));
  Value kBegin = body->getArgument(numTileDims);
  Value kEnd = body->getArgument(numTileDims + 1);
  Type f32 = rw.getF32Type();
  kOffset = constIndex(rw, loc, 0);

  unsigned rowAxis =
      *llvm::find_if(rowAxes, [&](unsigned a) { return plan.tile[a] > 1; });
  // The scores stay in the MMA fragment (read in place by the row
  // reductions and P) when each row of it sits in one warp and every fused
  // reduction is rows x keys over it.
  auto rowsThenKeys = [&](const Fused &f) {
    SmallVector<unsigned> axes = keptAxes(f);
    return axes.size() == 2 &&
           f.anchorAxis[axes[0]] == static_cast<int>(rowAxis) &&
           f.anchorAxis[axes[1]] == static_cast<int>(kAxis);
  };
  bool scoresInRegisters = false;
  if (scores && mma) {
    SmallVector<int64_t> sShape;
    localMap(*scores, scores->op.getOutputMap(0), &sShape);
    Type sElem =
        cast<MemRefType>(scores->op.getOutputs()[0].getType()).getElementType();
    scoresInRegisters = mma.getWarps().size() == 2 && mma.getWarps()[1] == 1 &&
                        sShape.size() == 2 && sElem.isF32() &&
                        rowsThenKeys(max) && llvm::all_of(sums, rowsThenKeys);
  }
  // Row statistics: with the scores in registers, in registers too, each
  // lane holding its fragment rows' values (a slice of the MMA layout, as
  // FlashAttention keeps them): no shared memory and no barrier between
  // the row phases. Otherwise in shared memory, a row per thread.
  SmallVector<int64_t> statThreads{rowOnly};
  FragmentLayoutAttrInterface statLayout;
  if (scoresInRegisters) {
    statThreads = {block};
    statLayout = SliceLayoutAttr::get(ctx, 1, mma);
  }
  auto rowBuf = [&](const Twine &what, Type t) {
    if (statLayout)
      return allocFragment(MemRefType::get(rowShape, t), statThreads,
                           statLayout);
    return allocShared(what, rowShape, t);
  };
  Type mType = cast<MemRefType>(max.op.getOutputs()[0].getType()).getElementType();
  mBuf = rowBuf("running max", mType);
  mNewBuf = rowBuf("new max", mType);
  mEffBuf = rowBuf("max as the step reads it", mType);
  for (auto [i, l] : llvm::enumerate(sums)) {
    sumBufs.push_back(rowBuf("running " + quotedName(l.op),
                             cast<MemRefType>(l.op.getOutputs()[0].getType())
                                 .getElementType()));
  }
  alphaAcc = rowBuf("rescale of the accumulator", f32);

  // Anchor-axis maps of the row buffers and the accumulator.
  auto rowMapOver = [&](ArrayRef<unsigned> anchorAxes) {
    SmallVector<AffineExpr> r;
    for (auto [d, a] : llvm::enumerate(anchorAxes))
      if (llvm::is_contained(rowAxes, a) && plan.tile[a] > 1)
        r.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(anchorAxes.size(), 0, r, ctx);
  };
  SmallVector<unsigned> rowOnlyAxes{rowAxis};
  SmallVector<unsigned> rowKeyAxes{rowAxis, kAxis};
  AffineMap rowId = rowMapOver(rowOnlyAxes);
  AffineMap accId = AffineMap::getMultiDimIdentityMap(accAxes.size(), ctx);
  AffineMap accRow = rowMapOver(accAxes);
  FragmentLayoutAttrInterface accLayout = layout;

  // Init: acc = 0, m = -inf, sums = 0.
  auto accType = MemRefType::get(
      accShape, cast<MemRefType>(anchor.getOutputs()[0].getType()).getElementType());
  Value acc = allocFragment(accType, accThreads, accLayout);
  auto constBody = [&](TileComputeOp tc, ArrayRef<TypedAttr> values) {
    Block *b = rw.createBlock(&tc.getBody());
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    SmallVector<Value> vs;
    for (TypedAttr v : values)
      vs.push_back(arith::ConstantOp::create(ob, loc, v));
    YieldOp::create(ob, loc, vs);
  };
  {
    auto tc = tileCompute(self, accAxes, accThreads, {}, {}, {{acc, accId}}, {},
                          false, accLayout);
    constBody(tc, {rw.getZeroAttr(accType.getElementType())});
    rw.setInsertionPointAfter(tc);
    SmallVector<TileOperand> outs{{mBuf, rowId}};
    SmallVector<TypedAttr> vals{rw.getFloatAttr(
        mType, APFloat::getInf(cast<FloatType>(mType).getFloatSemantics(), true))};
    for (Value s : sumBufs) {
      outs.push_back({s, rowId});
      vals.push_back(rw.getZeroAttr(cast<MemRefType>(s.getType()).getElementType()));
    }
    auto init = tileCompute(self, rowOnlyAxes, statThreads, {}, {}, outs, {},
                            false, statLayout);
    constBody(init, vals);
    rw.setInsertionPointAfter(init);
  }

  // The loop over key tiles, causal tiles skipped.
  Value cKeys = constIndex(rw, loc, keys);
  Value loopEnd = kEnd;
  if (causal) {
    // Keys j <= i + c for rows i < offset + rows: tiles below
    // ceil((offset + rows + c) / keys).
    Value last = arith::AddIOp::create(
        rw, loc, frame.offsets[rowAxis], constIndex(rw, loc, rows + *causal));
    Value zero = constIndex(rw, loc, 0);
    last = arith::MaxSIOp::create(rw, loc, last, zero);
    Value tiles = arith::CeilDivUIOp::create(rw, loc, last, cKeys);
    loopEnd = arith::MinSIOp::create(rw, loc, kEnd, tiles);
  }
  int64_t stages = schedule.getStages();
  // The prologue: the copies of the first N - 1 steps, a group each.
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value step = arith::AddIOp::create(rw, loc, kBegin, constIndex(rw, loc, s));
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, step, loopEnd);
    Value offset = arith::MulIOp::create(rw, loc, step, cKeys);
    Value which = constIndex(rw, loc, s);
    auto commit = CopyCommitOp::create(rw, loc);
    prefetches.push_back({commit, offset, active, which});
  }
  auto loop = scf::ForOp::create(rw, loc, kBegin, loopEnd, constIndex(rw, loc, 1));
  keyLoop = loop;
  rw.setInsertionPoint(loop.getBody()->getTerminator());
  if (stages > 1) {
    // Wait for this step's group (all but the N - 2 newest), then copy the
    // step N - 1 ahead into the buffer the previous step freed.
    Value rel = arith::SubIOp::create(rw, loc, loop.getInductionVar(), kBegin);
    Value cStages = constIndex(rw, loc, stages);
    stage = arith::RemUIOp::create(rw, loc, rel, cStages);
    CopyWaitOp::create(rw, loc, stages - 2 + (options.weakenAsyncWait ? 1 : 0));
    Value ahead = arith::AddIOp::create(rw, loc, loop.getInductionVar(),
                                        constIndex(rw, loc, stages - 1));
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, ahead, loopEnd);
    Value offset = arith::MulIOp::create(rw, loc, ahead, cKeys);
    Value aheadStage = arith::RemUIOp::create(
        rw, loc,
        arith::AddIOp::create(rw, loc, rel, constIndex(rw, loc, stages - 1)),
        cStages);
    auto commit = CopyCommitOp::create(rw, loc);
    prefetches.push_back({commit, offset, active, aheadStage});
  }
  kOffset = arith::MulIOp::create(rw, loc, loop.getInductionVar(), cKeys);
  int64_t keyExtent = plan.extents[kAxis];
  kValid = keyExtent % keys == 0
               ? cKeys
               : arith::MinSIOp::create(
                     rw, loc, cKeys,
                     arith::SubIOp::create(rw, loc, constIndex(rw, loc, keyExtent),
                                           kOffset))
                     .getResult();
  Value rowsValid = frame.bounds[rowAxis];

  // Inputs of a fused compute as tile operands: the kernel's buffers, or
  // shared copies of global windows (copied here, each k-step).
  auto operands = [&](const Fused &f, SmallVectorImpl<int> &args,
                      ArrayRef<Value> needed, ArrayRef<unsigned> over = {})
      -> FailureOr<SmallVector<TileOperand>> {
    SmallVector<TileOperand> ins;
    Block &src = f.op.getBody().front();
    args.assign(src.getNumArguments(), -1);
    // Only the arguments the needed values read.
    llvm::SmallDenseSet<unsigned> used;
    SmallVector<Value> work(needed.begin(), needed.end());
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        used.insert(arg.getArgNumber());
        continue;
      }
      if (seen.insert(v.getDefiningOp()).second)
        llvm::append_range(work, dependencies(v.getDefiningOp()));
    }
    for (unsigned i = 0; i < src.getNumArguments(); ++i) {
      if (!used.contains(i))
        continue;
      args[i] = ins.size();
      if (std::optional<TileOperand> kb =
              kernelBuffer(f, f.op.getInputs()[i], f.op.getInputMap(i), over)) {
        ins.push_back(*kb);
        continue;
      }
      FailureOr<TileOperand> t = inputTile(f, i, /*copy=*/true, over);
      if (failed(t))
        return failure();
      ins.push_back(*t);
    }
    return ins;
  };
  auto yieldOf = [](const Fused &f) {
    return f.op.getBody().front().getTerminator()->getOperand(0);
  };

  // The value tile's copy first, with the scores' operands: one barrier.
  // Without stages (the step's K and V copied in the step), when Q, K, V
  // and P would not fit the chip's shared memory together, V is copied
  // after the scores instead: its tile is then live only after K's last
  // read, and ext-gpu-reuse-shared-memory gives it K's bytes. The price is
  // a second copy phase in each step (its latency exposed); it is paid only
  // where the tiles would not fit otherwise (a head of 256 on AMD's 64 KB).
  if (!valueAfterScores())
    if (failed(inputTile(self, wInput, /*copy=*/true)))
      return failure();
  // Scores: the attached producer per k-step, into registers, then shared.
  if (scores) {
    SmallVector<unsigned> sAxes = keptAxes(*scores);
    SmallVector<int> args;
    FailureOr<SmallVector<TileOperand>> ins =
        operands(*scores, args, {yieldOf(*scores)});
    if (failed(ins))
      return failure();
    SmallVector<int64_t> sShape;
    AffineMap sOut = localMap(*scores, scores->op.getOutputMap(0), &sShape);
    Type sElem =
        cast<MemRefType>(scores->op.getOutputs()[0].getType()).getElementType();
    if (!scoresInRegisters)
      sBuf = allocShared("scores", sShape, sElem);
    SmallVector<int64_t> sThreads;
    for (unsigned a : sAxes)
      sThreads.push_back(scores->op.getAxisList()[a].isReduce() ? 1 : 0);
    FragmentLayoutAttrInterface sLayout;
    if (mma) {
      // The accumulator's warps over rows x keys: a fragment, then shared.
      for (unsigned k = 0, s = 0; k < sThreads.size(); ++k)
        if (sThreads[k] == 0)
          sThreads[k] = accThreads[s++];
      Value frag = allocFragment(MemRefType::get(sShape, sElem), accThreads, mma);
      AffineMap fragId = AffineMap::getMultiDimIdentityMap(sShape.size(), ctx);
      SmallVector<unsigned> sSpatial;
      for (unsigned a : sAxes)
        if (scores->op.getAxisList()[a].isSpatial())
          sSpatial.push_back(a);
      // Zeros, then accumulated: a GEMM runs on the instruction only as an
      // accumulation into its fragment.
      bool gemm = scores->op.getCombiner() == CombinerKind::sum;
      if (gemm) {
        auto zero = tileCompute(*scores, sSpatial, accThreads, {}, {},
                                {{frag, fragId}}, {}, false, mma);
        Block *zb = rw.createBlock(&zero.getBody());
        OpBuilder zob = OpBuilder::atBlockBegin(zb);
        YieldOp::create(zob, loc,
                        arith::ConstantOp::create(zob, loc, zob.getZeroAttr(sElem))
                            .getResult());
        rw.setInsertionPointAfter(zero);
      }
      auto tc = tileCompute(*scores, sAxes, sThreads, {}, *ins,
                            {{frag, sOut}}, scores->op.getCombinerAttr(), gemm,
                            mma);
      fillBody(*scores, tc, args, {yieldOf(*scores)});
      rw.setInsertionPointAfter(tc);
      if (scoresInRegisters) {
        sFrag = frag;
        sFragLayout = mma;
        sFragThreads.assign(accThreads.begin(), accThreads.end());
      }
      AffineMap id = AffineMap::getMultiDimIdentityMap(sShape.size(), ctx);
      SmallVector<unsigned> spatial;
      for (unsigned a : sAxes)
        if (scores->op.getAxisList()[a].isSpatial())
          spatial.push_back(a);
      if (!scoresInRegisters) {
        auto store = tileCompute(*scores, spatial, accThreads, {},
                                 {{frag, id}}, {{sBuf, id}}, {}, false, mma);
        Block *b = rw.createBlock(&store.getBody(), {}, {sElem}, {loc});
        OpBuilder ob = OpBuilder::atBlockBegin(b);
        YieldOp::create(ob, loc, b->getArgument(0));
        rw.setInsertionPointAfter(store);
      }
    } else {
      // Straight into shared memory, the rows and keys over the block.
      for (unsigned k = 0, s = 0; k < sThreads.size(); ++k)
        if (sThreads[k] == 0)
          sThreads[k] = rt[s++];
      auto tc = tileCompute(*scores, sAxes, sThreads, {}, *ins, {{sBuf, sOut}},
                            scores->op.getCombinerAttr(), false,
                            FragmentLayoutAttrInterface());
      fillBody(*scores, tc, args, {yieldOf(*scores)});
      rw.setInsertionPointAfter(tc);
    }
  }

  // A reduction of `f` over the step's valid keys into the row buffer `out`:
  // from the scores' fragment in registers where there is one, else across
  // the block's threads. With `foldOld` (M's), `out`'s old value is one more
  // input, folded in with max; a sum accumulates into `out`.
  auto rowReduction = [&](const Fused &f, Value out, Value foldOld,
                          bool accumulate) -> LogicalResult {
    SmallVector<int> args;
    FailureOr<SmallVector<TileOperand>> ins = operands(f, args, {yieldOf(f)});
    if (failed(ins))
      return failure();
    AffineMap outMap = localMap(f, f.op.getOutputMap(0));
    if (foldOld)
      ins->push_back({foldOld, outMap});
    SmallVector<unsigned> axes = keptAxes(f);
    SmallVector<int64_t> threads;
    SmallVector<Value> bounds;
    for (unsigned a : axes) {
      bool key = static_cast<unsigned>(f.anchorAxis[a]) == kAxis;
      threads.push_back(key ? rt[1] : rt[0]);
      bounds.push_back(key ? kValid : rowsValid);
    }
    if (sFrag)
      threads = sFragThreads;
    auto tc = tileCompute(f, axes, threads, bounds, *ins, {{out, outMap}},
                          f.op.getCombinerAttr(), accumulate, sFragLayout);
    unsigned oldArg = ins->size() - 1;
    auto fold = [&](OpBuilder &b, ArrayRef<Value> v) -> SmallVector<Value> {
      Value old = b.getBlock()->getArgument(oldArg);
      return {arith::MaximumFOp::create(b, loc, v[0], old)};
    };
    if (foldOld)
      fillBody(f, tc, args, {yieldOf(f)}, fold);
    else
      fillBody(f, tc, args, {yieldOf(f)});
    rw.setInsertionPointAfter(tc);
    return success();
  };

  // m_new = max(m, max_j g(S)) over the valid keys.
  if (failed(rowReduction(max, mNewBuf, /*foldOld=*/mBuf, false)))
    return failure();

  // Per row: the rescale of each sum and of the accumulator, the max the
  // step reads (0 while the row has seen only -inf), m = m_new.
  {
    SmallVector<TileOperand> ins{{mNewBuf, rowId}, {mBuf, rowId}};
    SmallVector<TileOperand> outs{{mBuf, rowId}, {mEffBuf, rowId}, {alphaAcc, rowId}};
    for (Value s : sumBufs) {
      ins.push_back({s, rowId});
      outs.push_back({s, rowId});
    }
    auto tc = tileCompute(self, rowOnlyAxes, statThreads, {}, ins, outs, {},
                          false, statLayout);
    SmallVector<Type> types;
    for (const TileOperand &t : ins)
      types.push_back(cast<MemRefType>(t.buffer.getType()).getElementType());
    Block *b = rw.createBlock(&tc.getBody(), {}, types,
                              SmallVector<Location>(types.size(), loc));
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    Value mNew = b->getArgument(0), mOld = b->getArgument(1);
    Value negInf = arith::ConstantOp::create(
        ob, loc, ob.getFloatAttr(mType, APFloat::getInf(
                                            cast<FloatType>(mType).getFloatSemantics(),
                                            true)));
    Value zero = arith::ConstantOp::create(ob, loc, ob.getZeroAttr(mType));
    Value newIsInf = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OEQ, mNew, negInf);
    Value oldIsInf = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OEQ, mOld, negInf);
    Value mEff = arith::SelectOp::create(ob, loc, newIsInf, zero, mNew);
    // alpha = exp(h(m_old) - h(m_eff)), 0 while nothing was added.
    auto alphaFor = [&](const OnlineTerm &t) -> Value {
      auto h = [&](Value m) {
        IRMapping map;
        map.map(t.m, m);
        for (Operation *op : t.hOps)
          ob.clone(*op, map);
        return map.lookupOrDefault(t.hm);
      };
      Value d = arith::SubFOp::create(ob, loc, h(mOld), h(mEff));
      Value e = t.base2 ? math::Exp2Op::create(ob, loc, d).getResult()
                        : math::ExpOp::create(ob, loc, d).getResult();
      Value z = arith::ConstantOp::create(ob, loc, ob.getZeroAttr(e.getType()));
      Value a = arith::SelectOp::create(ob, loc, oldIsInf, z, e);
      if (a.getType() != f32)
        a = arith::ExtFOp::create(ob, loc, f32, a);
      return a;
    };
    SmallVector<Value> ys{mNew, mEff, alphaFor(anchorTerm)};
    for (auto [k, t] : llvm::enumerate(sumTerms)) {
      Value alpha = alphaFor(t);
      Value l = b->getArgument(2 + k);
      if (l.getType() != alpha.getType())
        alpha = arith::TruncFOp::create(ob, loc, l.getType(), alpha);
      ys.push_back(arith::MulFOp::create(ob, loc, l, alpha));
    }
    YieldOp::create(ob, loc, ys);
    rw.setInsertionPointAfter(tc);
  }

  // With the scores in registers, P (the accumulator's exp factor) is
  // computed once into a fragment: each sum whose summand is that same value
  // (the row sum of softmax) folds it from there, and P's shared tile is
  // written from it. One exp per score instead of one per use.
  AffineMap rowKeyId = AffineMap::getMultiDimIdentityMap(2, ctx);
  Value pFrag;
  SmallVector<bool> fromP(sums.size(), false);
  if (sFrag && pValue.getType().isF32()) {
    SmallVector<int> pArgs;
    FailureOr<SmallVector<TileOperand>> pIns =
        operands(self, pArgs, {pValue}, rowKeyAxes);
    if (failed(pIns))
      return failure();
    for (auto [k, f] : llvm::enumerate(sums)) {
      SmallVector<int> args;
      FailureOr<SmallVector<TileOperand>> ins = operands(f, args, {yieldOf(f)});
      if (failed(ins))
        return failure();
      if (sameValue(f, args, *ins, yieldOf(f), self, pArgs, *pIns, pValue))
        fromP[k] = true;
    }
    if (llvm::is_contained(fromP, true)) {
      pFrag = allocFragment(MemRefType::get({rows, keys}, pValue.getType()),
                            sFragThreads, sFragLayout);
      auto tc = tileCompute(self, rowKeyAxes, sFragThreads, {}, *pIns,
                            {{pFrag, rowKeyId}}, {}, false, sFragLayout,
                            /*allSpatial=*/true);
      fillBody(self, tc, pArgs, {pValue});
      rw.setInsertionPointAfter(tc);
    }
    for (auto [f, buf, folded] : llvm::zip(sums, sumBufs, fromP)) {
      if (!folded)
        continue;
      SmallVector<unsigned> axes = keptAxes(f);
      auto tc = tileCompute(
          f, axes, sFragThreads, {rowsValid, kValid}, {{pFrag, rowKeyId}},
          {{buf, localMap(f, f.op.getOutputMap(0))}}, f.op.getCombinerAttr(),
          /*accumulate=*/true, sFragLayout);
      Block *b = rw.createBlock(&tc.getBody(), {}, {pValue.getType()}, {loc});
      OpBuilder ob = OpBuilder::atBlockBegin(b);
      YieldOp::create(ob, loc, b->getArgument(0));
      rw.setInsertionPointAfter(tc);
    }
  }
  // Each other sum: l += sum_j over the valid keys, M read as m_eff.
  for (auto [k, f] : llvm::enumerate(sums))
    if (!fromP[k] && failed(rowReduction(f, sumBufs[k], /*foldOld=*/Value(),
                                         /*accumulate=*/true)))
      return failure();

  // P over rows x keys, in the value operand's type under mma; 0 past the
  // valid keys (the value tile's copy zero-fills there, but P * 0 must stay
  // 0).
  Type wElem = cast<MemRefType>(anchor.getInputs()[wInput].getType()).getElementType();
  Type pElem = mma ? wElem : pValue.getType();
  SmallVector<int64_t> pShape{rows, keys};
  Value pBuf = allocShared("softmax factor P", pShape, pElem,
                           operandSwizzle(pShape, pElem));
  {
    auto finish = [&](OpBuilder &b, ArrayRef<Value> v) -> SmallVector<Value> {
      Value p = v[0];
      if (keyExtent % keys != 0) {
        Value j = IndexOp::create(b, loc, b.getIndexType(),
                                  plan.axes[kAxis].getName());
        Value in =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, kValid);
        Value z = arith::ConstantOp::create(b, loc, b.getZeroAttr(p.getType()));
        p = arith::SelectOp::create(b, loc, in, p, z);
      }
      if (p.getType() != pElem)
        p = arith::TruncFOp::create(b, loc, pElem, p);
      return {p};
    };
    TileComputeOp tc;
    if (pFrag) {
      // From the fragment computed above.
      tc = tileCompute(self, rowKeyAxes, sFragThreads, {}, {{pFrag, rowKeyId}},
                       {{pBuf, rowKeyId}}, {}, false, sFragLayout,
                       /*allSpatial=*/true);
      Block *b = rw.createBlock(&tc.getBody(), {}, {pValue.getType()}, {loc});
      OpBuilder ob = OpBuilder::atBlockBegin(b);
      YieldOp::create(ob, loc, finish(ob, {b->getArgument(0)}));
    } else {
      SmallVector<int> args;
      FailureOr<SmallVector<TileOperand>> ins =
          operands(self, args, {pValue}, rowKeyAxes);
      if (failed(ins))
        return failure();
      tc = tileCompute(self, rowKeyAxes,
                       sFrag ? ArrayRef<int64_t>(sFragThreads)
                             : ArrayRef<int64_t>(rt),
                       {}, *ins, {{pBuf, rowKeyId}}, {}, false, sFragLayout,
                       /*allSpatial=*/true);
      // fillBody maps the anchor's axes; the tile compute has rows x keys.
      fillBody(self, tc, args, {pValue}, finish);
    }
    rw.setInsertionPointAfter(tc);
  }

  // acc = alpha * acc + P * W.
  {
    auto tc = tileCompute(self, accAxes, accThreads, {},
                          {{alphaAcc, accRow}, {acc, accId}}, {{acc, accId}},
                          {}, false, accLayout);
    Block *b = rw.createBlock(&tc.getBody(), {}, {f32, accType.getElementType()},
                              {loc, loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    Value alpha = b->getArgument(0);
    if (alpha.getType() != accType.getElementType())
      alpha = arith::TruncFOp::create(ob, loc, accType.getElementType(), alpha);
    YieldOp::create(ob, loc,
                    arith::MulFOp::create(ob, loc, alpha, b->getArgument(1)).getResult());
    rw.setInsertionPointAfter(tc);

    FailureOr<TileOperand> w = inputTile(self, wInput, /*copy=*/true);
    if (failed(w))
      return failure();
    SmallVector<unsigned> pvAxes(accAxes);
    pvAxes.push_back(kAxis);
    // P's map over (rows, values, keys): (row, key); W's over its window.
    SmallVector<AffineExpr> pRes;
    pRes.push_back(getAffineDimExpr(0, ctx));
    pRes.push_back(getAffineDimExpr(2, ctx));
    AffineMap pMap = AffineMap::get(3, 0, pRes, ctx);
    // W's local map is over the anchor's kept axes (rows?, values, keys) in
    // axis order; re-express it over (acc axes..., key).
    SmallVector<unsigned> keptA = keptAxes(self);
    SmallVector<AffineExpr> wRes;
    for (AffineExpr e : w->map.getResults()) {
      unsigned anchorA = keptA[cast<AffineDimExpr>(e).getPosition()];
      unsigned pos = llvm::find(pvAxes, anchorA) - pvAxes.begin();
      wRes.push_back(getAffineDimExpr(pos, ctx));
    }
    AffineMap wMap = AffineMap::get(3, 0, wRes, ctx);
    SmallVector<int64_t> pvThreads(accThreads);
    pvThreads.push_back(1);
    auto pv = tileCompute(self, pvAxes,
                          pvThreads, {},
                          {{pBuf, pMap}, {w->buffer, wMap}}, {{acc, AffineMap::get(3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx)}},
                          anchor.getCombinerAttr(), true, accLayout);
    Block *pb = rw.createBlock(&pv.getBody(), {}, {pElem, wElem}, {loc, loc});
    OpBuilder pob = OpBuilder::atBlockBegin(pb);
    Type accElem = accType.getElementType();
    Value p = pb->getArgument(0);
    if (p.getType() != accElem)
      p = arith::ExtFOp::create(pob, loc, accElem, p);
    Value wv = pb->getArgument(1);
    if (wv.getType() != accElem)
      wv = arith::ExtFOp::create(pob, loc, accElem, wv);
    YieldOp::create(pob, loc, arith::MulFOp::create(pob, loc, p, wv).getResult());
    rw.setInsertionPointAfter(pv);
  }

  // --- after the keys -------------------------------------------------------
  rw.setInsertionPointAfter(loop);
  if (stages > 1)
    CopyWaitOp::create(rw, loc, 0);
  FailureOr<std::optional<FusedConsumer>> fusedOr =
      resolveReverseComputeAt(anchor, schedule, plan);
  if (failed(fusedOr))
    return failure();
  std::optional<FusedConsumer> consumer = *fusedOr;
  SmallVector<Operation *> fusedOps{anchor, max.op};
  for (const Fused &f : sums)
    fusedOps.push_back(f.op);
  if (consumer)
    fusedOps.push_back(consumer->consumer);
  // M and the sums go to their outputs if anything else reads them.
  auto storeRows = [&](const Fused &f, Value buf) -> LogicalResult {
    Value out = f.op.getOutputs()[0];
    if (!isReadElsewhere(out, fusedOps))
      return success();
    // The output's window at the tile, written from the rows' buffer.
    SmallVector<unsigned> axes;
    for (unsigned a : keptAxes(f))
      if (f.op.getAxisList()[a].isSpatial())
        axes.push_back(a);
    Window w = window(f, out, f.op.getOutputMap(0));
    Value tile = tileView(rw, loc, w.view, w.origins, w.shape);
    AffineMap id = AffineMap::getMultiDimIdentityMap(w.shape.size(), ctx);
    auto tc = tileCompute(f, axes, statThreads, {rowsValid}, {{buf, id}},
                          {{tile, id}}, {}, false, statLayout);
    Type t = cast<MemRefType>(buf.getType()).getElementType();
    Block *b = rw.createBlock(&tc.getBody(), {}, {t}, {loc});
    OpBuilder ob = OpBuilder::atBlockBegin(b);
    YieldOp::create(ob, loc, b->getArgument(0));
    rw.setInsertionPointAfter(tc);
    return success();
  };
  if (failed(storeRows(max, mBuf)))
    return failure();
  for (auto [f, buf] : llvm::zip(sums, sumBufs))
    if (failed(storeRows(f, buf)))
      return failure();
  // Later reads of M (the epilogue consumer's) see the final max.
  mEffBuf = mBuf;

  // The epilogue: the consumer fused by reverse_compute_at, or the store.
  SmallVector<Value> accBounds;
  for (unsigned a : accAxes)
    accBounds.push_back(frame.bounds[a]);
  auto storeTo = [&](const Fused &f, Value out, AffineMap outMap,
                     ArrayRef<TileOperand> ins, ArrayRef<int> args,
                     Value yielded) -> LogicalResult {
    Window w = window(f, out, outMap);
    Value tile = tileView(rw, loc, w.view, w.origins, w.shape);
    SmallVector<unsigned> axes;
    for (unsigned a : keptAxes(f))
      if (f.op.getAxisList()[a].isSpatial())
        axes.push_back(a);
    auto tc = tileCompute(f, axes, accThreads, accBounds, ins,
                          {{tile, localMap(f, outMap, nullptr, axes)}}, {},
                          false, accLayout);
    if (yielded) {
      fillBody(f, tc, args, {yielded});
    } else {
      Block *b = rw.createBlock(&tc.getBody(), {}, {accType.getElementType()}, {loc});
      OpBuilder ob = OpBuilder::atBlockBegin(b);
      YieldOp::create(ob, loc, b->getArgument(0));
    }
    rw.setInsertionPointAfter(tc);
    return success();
  };
  bool storeAnchor = !consumer || consumer->keepAnchorOutput;
  if (storeAnchor &&
      failed(storeTo(self, anchor.getOutputs()[0], anchor.getOutputMap(0),
                     {{acc, accId}}, {}, Value())))
    return failure();
  if (consumer) {
    Fused d{consumer->consumer, {}};
    for (unsigned a : consumer->anchorAxis)
      d.anchorAxis.push_back(a);
    SmallVector<int> args;
    Value yielded = d.op.getBody().front().getTerminator()->getOperand(0);
    SmallVector<TileOperand> ins;
    Block &src = d.op.getBody().front();
    args.assign(src.getNumArguments(), -1);
    for (unsigned i = 0; i < src.getNumArguments(); ++i) {
      args[i] = ins.size();
      AffineMap map = d.op.getInputMap(i);
      if (i == consumer->input) {
        ins.push_back({acc, localMap(d, map)});
        continue;
      }
      if (std::optional<TileOperand> kb = kernelBuffer(d, d.op.getInputs()[i], map)) {
        ins.push_back(*kb);
        continue;
      }
      FailureOr<TileOperand> t = inputTile(d, i, /*copy=*/false);
      if (failed(t))
        return failure();
      ins.push_back(*t);
    }
    if (failed(storeTo(d, d.op.getOutputs()[0], d.op.getOutputMap(0), ins, args,
                       yielded)))
      return failure();
  }
  KernelYieldOp::create(rw, loc, ValueRange());

  // The fused computes are now the kernel's.
  if (consumer)
    rw.eraseOp(consumer->consumer);
  rw.eraseOp(anchor);
  for (Fused &f : llvm::reverse(sums))
    rw.eraseOp(f.op);
  rw.eraseOp(max.op);
  if (scores && !isReadElsewhere(scores->op.getOutputs()[0], {scores->op}))
    rw.eraseOp(scores->op);
  return kernel;
}

} // namespace

FailureOr<KernelOp> tiling::applyOnlineSoftmax(
    RewriterBase &rw, ComputeOp op, ScheduleAttr schedule, TilingPlan &plan,
    FragmentLayoutAttrInterface layout, ArrayRef<StringAttr> inlined,
    const ApplyScheduleOptions &options) {
  return OnlineSoftmaxBuilder(rw, op, schedule, plan, layout, inlined, options)
      .build();
}
