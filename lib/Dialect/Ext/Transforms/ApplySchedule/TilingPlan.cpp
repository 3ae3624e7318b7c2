//===- TilingPlan.cpp - the tiling a schedule gives a compute -------------===//
//
// The first step of ext-apply-schedule: from an ext.compute and its schedule,
// the plan (tile grid, the reduce axis split into k-steps, which operands go
// through shared memory, each input's window over a tile), checked against
// 64-bit overflow since every number comes from the input.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

std::string str(AffineExpr e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  e.print(os);
  return s;
}

/// The window of one result `expr` of input #i's map over a tile, and its
/// tile-local expression `local`: `expr` is linear in the axes, or a linear
/// L under floordiv or mod by a constant c. Tile offsets are multiples of
/// the tiles, zero on the axes neither blocked nor stepped: L's origin moves
/// by multiples of g = gcd(coeff_a * tile_a) over those axes. Where c
/// divides g, L's origin less `lo` (lowered by its remainder r) is a
/// multiple of c and the window over the quotients is exact; where g
/// divides c and the tile's span of L fits in g, each tile lies inside one
/// multiple of c (one group: a window of one quotient).
FailureOr<WindowDim> planWindowDim(ComputeOp op, const TilingPlan &plan,
                                   unsigned i, AffineExpr expr,
                                   AffineExpr &local) {
  MLIRContext *ctx = op.getContext();
  unsigned numAxes = plan.axes.size();
  WindowDim d;
  AffineExpr linear = expr;
  // `q + k` with q a floordiv or mod: the window of q, moved by k.
  AffineExpr quasi = expr;
  if (auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
      sum && expr.getKind() == AffineExprKind::Add) {
    AffineExpr lhs = sum.getLHS(), rhs = sum.getRHS();
    if (isa<AffineConstantExpr>(lhs))
      std::swap(lhs, rhs);
    if (auto k = dyn_cast<AffineConstantExpr>(rhs);
        k && (lhs.getKind() == AffineExprKind::FloorDiv ||
              lhs.getKind() == AffineExprKind::Mod)) {
      quasi = lhs;
      d.offset = k.getValue();
    }
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(quasi);
  // (L mod c1) floordiv c2 with c2 dividing c1: a Mod window, post-divided.
  if (bin && quasi.getKind() == AffineExprKind::FloorDiv &&
      bin.getLHS().getKind() == AffineExprKind::Mod)
    if (auto c2 = dyn_cast<AffineConstantExpr>(bin.getRHS())) {
      auto inner = cast<AffineBinaryOpExpr>(bin.getLHS());
      auto c1 = dyn_cast<AffineConstantExpr>(inner.getRHS());
      if (c1 && c2.getValue() > 0 && c1.getValue() % c2.getValue() == 0) {
        d.postDivisor = c2.getValue();
        quasi = inner;
        bin = inner;
      }
    }
  if (bin && (quasi.getKind() == AffineExprKind::FloorDiv ||
              quasi.getKind() == AffineExprKind::Mod))
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS())) {
      linear = bin.getLHS();
      d.kind = quasi.getKind() == AffineExprKind::Mod ? WindowDim::Kind::Mod
                                                      : WindowDim::Kind::FloorDiv;
      d.divisor = c.getValue(); // positive: the verifier checks
    }
  if (d.kind == WindowDim::Kind::Linear) {
    linear = expr;
    d.offset = 0;
  }
  SmallVector<int64_t> flat;
  if (failed(getFlattenedAffineExpr(linear, numAxes, 0, &flat)) ||
      flat.size() != numAxes + 1)
    return op.emitOpError()
           << "access '" << str(expr) << "' of input #" << i
           << " is not linear in the axes; ext-apply-schedule tiles linear "
              "accesses and their floordiv or mod by a constant";
  d.coeffs.assign(flat.begin(), flat.end() - 1);
  d.constant = flat.back();
  auto overflow = [&]() {
    return op.emitOpError()
           << "the tile window of input #" << i << " overflows a 64-bit size";
  };
  // Coefficients and tiles come from the input: every step is checked.
  std::optional<int64_t> lo = 0, hi = 0;
  AffineExpr e = getAffineConstantExpr(0, ctx);
  for (unsigned a = 0; a < numAxes && lo && hi; ++a) {
    std::optional<int64_t> span =
        llvm::checkedMul(d.coeffs[a], plan.tile[a] - 1);
    if (!span) {
      lo.reset();
      break;
    }
    std::optional<int64_t> &bound = *span < 0 ? lo : hi;
    bound = llvm::checkedAdd(*bound, *span);
    e = e + getAffineDimExpr(a, ctx) * d.coeffs[a];
  }
  std::optional<int64_t> size;
  if (lo && hi)
    if (std::optional<int64_t> diff = llvm::checkedSub(*hi, *lo))
      size = llvm::checkedAdd(*diff, int64_t(1));
  if (!size || !llvm::checkedAdd(d.constant, *lo))
    return overflow();
  d.lo = *lo;
  d.size = *size;
  local = e - d.lo;
  if (d.kind == WindowDim::Kind::Linear)
    return d;

  int64_t c = d.divisor;
  std::optional<int64_t> g = 0;
  std::optional<unsigned> stuck; // the first axis whose tile c does not divide
  for (unsigned a = 0; a < numAxes && g; ++a) {
    bool moves = llvm::is_contained(plan.blockedAxes, a) ||
                 (plan.kAxis && a == *plan.kAxis);
    if (!moves || d.coeffs[a] == 0)
      continue;
    std::optional<int64_t> step =
        llvm::checkedMul(std::abs(d.coeffs[a]), plan.tile[a]);
    g = step ? std::optional<int64_t>(std::gcd(*g, *step)) : std::nullopt;
    if (g && *step % c != 0 && !stuck)
      stuck = a;
  }
  if (!g)
    return overflow();
  int64_t start = d.constant + d.lo;
  if (*g % c == 0) {
    // Whole multiples: every tile's L starts r past a multiple of c.
    int64_t r = llvm::mod(start, c);
    std::optional<int64_t> last = llvm::checkedAdd(d.size - 1, r);
    if (!last)
      return overflow();
    d.aligned = true;
    if (d.kind == WindowDim::Kind::Mod && *last < c && d.postDivisor == 1)
      return d; // [r, r + size) in one period: the origin's remainder
    d.lo -= r;  // the origin a multiple of c (the quotient, remainder 0)
    AffineExpr aligned = e - d.lo;
    if (d.kind == WindowDim::Kind::FloorDiv) {
      local = aligned.floorDiv(c);
      d.size = *last / c + 1;
    } else {
      local = aligned % c;
      d.size = c;
    }
    if (d.postDivisor > 1) { // whole periods: all c / postDivisor units
      local = local.floorDiv(d.postDivisor);
      d.size = c / d.postDivisor;
    }
    return d;
  }
  if (d.postDivisor > 1)
    return op.emitOpError()
           << "access '" << str(expr) << "' of input #" << i
           << ": its tiles must cover whole periods of " << c
           << " (a tile of the axes it moves with a multiple of " << c << ")";
  std::optional<int64_t> end = llvm::checkedAdd(llvm::mod(start, *g), d.size);
  if (c % *g == 0 && end && *end <= *g) {
    // Each tile inside one multiple of c: one quotient, or a run of
    // remainders from the origin's.
    if (d.kind == WindowDim::Kind::FloorDiv) {
      local = getAffineConstantExpr(0, ctx);
      d.size = 1;
    }
    return d;
  }
  unsigned a = *stuck;
  InFlightDiagnostic diag = op.emitOpError();
  diag << "tile " << plan.tile[a] << " of axis '" << plan.axes[a].getName()
       << "'";
  if (d.coeffs[a] != 1)
    diag << " (times its coefficient " << d.coeffs[a] << ")";
  return diag << " is not a multiple of " << c << ", the divisor in access '"
              << str(expr) << "' of input #" << i
              << ", nor does each tile lie inside one multiple of it";
}

} // namespace

FailureOr<TilingPlan> tiling::planTiling(ComputeOp op, ScheduleAttr schedule) {
  TilingPlan plan;
  plan.axes = op.getAxisList();
  plan.extents = op.getExtents();
  plan.tile = llvm::to_vector(schedule.getTile());
  plan.threads = llvm::to_vector(schedule.getThreads());
  unsigned numAxes = plan.axes.size();
  // A dynamic extent reads the first dynamic dimension that binds it (the
  // schedule verifier allows them on blocked spatial axes and the reduce
  // axis the k-loop steps through).
  for (unsigned a = 0; a < numAxes; ++a)
    plan.extentSources.push_back(getExtentSource(op, a));

  bool threadReduce = false;
  for (unsigned a = 0; a < numAxes; ++a) {
    if (plan.axes[a].isSpatial()) {
      plan.spatialAxes.push_back(a);
      continue;
    }
    if (plan.threads[a] > 1)
      threadReduce = true;
    // A tile larger than the axis is one ragged (zero-filled) k-step.
    if (plan.tile[a] != plan.extents[a])
      plan.kAxis = a;
  }
  for (StringAttr name : schedule.getBlocks()) {
    unsigned a = *op.getAxisPosition(name.getValue());
    if (plan.axes[a].isReduce())
      return op.emitOpError()
             << "binds reduce axis '" << name.getValue()
             << "' to blocks; ext-apply-schedule splits reductions through "
                "the decomposition, not the grid";
    plan.blockedAxes.push_back(a);
    plan.tileCounts.push_back(
        plan.axes[a].isDynamic()
            ? ShapedType::kDynamic
            : llvm::divideCeil(plan.extents[a], plan.tile[a]));
  }
  if (plan.tileCounts.empty())
    plan.tileCounts.push_back(1);
  if (plan.kAxis)
    plan.iters = ShapedType::isDynamic(plan.extents[*plan.kAxis])
                     ? ShapedType::kDynamic
                     : llvm::divideCeil(plan.extents[*plan.kAxis],
                                        plan.tile[*plan.kAxis]);
  if (threadReduce && plan.kAxis)
    return op.emitOpError()
           << "schedule binds a reduce axis to threads and also iterates over "
              "reduce axis '"
           << plan.axes[*plan.kAxis].getName()
           << "'; a thread-bound reduction must cover the whole reduction";
  plan.useFragments = op.hasReduceAxes() && !threadReduce;

  unsigned numInputs = op.getInputs().size();
  plan.cached.resize(numInputs);
  plan.cacheAttrs.resize(numInputs);
  plan.outputCache.resize(op.getOutputs().size());
  for (CacheAttr c : schedule.getCache()) {
    int64_t operand = c.getOperand();
    if (operand >= numInputs) {
      if (!plan.useFragments)
        return op.emitOpError()
               << "caches output #" << operand - numInputs
               << ", but its schedule binds the reduction to threads: only "
                  "an accumulator in fragments is staged through shared "
                  "memory";
      unsigned o = operand - numInputs;
      SmallVector<int64_t> shape;
      for (AffineExpr e : op.getOutputMap(o).getResults())
        shape.push_back(plan.tile[cast<AffineDimExpr>(e).getPosition()]);
      if (failed(AllocSharedOp::computeAlignedStrides(shape, c.getAlign())))
        return op.emitOpError() << "the shared tile of output #" << o
                                << " overflows a 64-bit size";
      if (SwizzleAttr swizzle = c.getSwizzle())
        if (failed(verifySwizzleOnTile(swizzle, shape, [&]() {
              return op.emitOpError()
                     << "cannot swizzle the shared tile of output #" << o
                     << ": ";
            })))
          return failure();
      plan.outputCache[o] = c;
      continue;
    }
    plan.cached.set(operand);
    plan.cacheAttrs[operand] = c;
  }

  MLIRContext *ctx = op.getContext();
  for (unsigned i = 0; i < numInputs; ++i) {
    InputWindow w;
    SmallVector<AffineExpr> local;
    for (AffineExpr expr : op.getInputMap(i).getResults()) {
      AffineExpr e;
      FailureOr<WindowDim> d = planWindowDim(op, plan, i, expr, e);
      if (failed(d))
        return failure();
      local.push_back(e);
      w.shape.push_back(d->size);
      w.dims.push_back(std::move(*d));
    }
    w.localMap = AffineMap::get(numAxes, 0, local, ctx);
    auto inputType = cast<MemRefType>(op.getInputs()[i].getType());
    AffineMap inputMap = op.getInputMap(i);
    if (inputType.getRank() > 0 &&
        ShapedType::isDynamic(inputType.getShape().back()))
      if (auto dim = dyn_cast<AffineDimExpr>(inputMap.getResults().back()))
        w.rowMultiple = plan.axes[dim.getPosition()].getMultipleOf();
    // A dimension an axis indexes alone has the axis's extent (the verifier
    // binds them): tiles that divide it keep every window inside.
    for (AffineExpr e : inputMap.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      w.inBounds.push_back(dim && tileDividesExtent(plan, dim.getPosition()));
    }
    if (plan.cached.test(i) && failed(AllocSharedOp::computeAlignedStrides(
                                   w.shape, plan.cacheAttrs[i].getAlign())))
      return op.emitOpError()
             << "the shared tile of input #" << i << " overflows a 64-bit size";
    if (plan.cached.test(i))
      if (SwizzleAttr swizzle = plan.cacheAttrs[i].getSwizzle()) {
        // (Its size fits: checked with the padded strides above.)
        if (failed(verifySwizzleOnTile(swizzle, w.shape, [&]() {
              return op.emitOpError()
                     << "cannot swizzle the shared tile of input #" << i
                     << ": ";
            })))
          return failure();
      }
    plan.windows.push_back(std::move(w));
  }
  return plan;
}

bool tiling::tileDividesExtent(const TilingPlan &plan, unsigned a) {
  int64_t extent = plan.extents[a];
  int64_t known =
      ShapedType::isDynamic(extent) ? plan.axes[a].getMultipleOf() : extent;
  return known % plan.tile[a] == 0;
}
