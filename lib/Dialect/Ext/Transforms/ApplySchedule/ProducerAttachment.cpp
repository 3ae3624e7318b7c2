//===- ProducerAttachment.cpp - compute_at in ext-apply-schedule ----------===//
//
// A schedule's `compute_at = [#ext.at<"P", "i">]` computes P, a producer of
// one of the scheduled compute's (the anchor's) inputs, inside the anchor's
// kernel: for each tile, P runs over exactly the region of its output the
// tile reads (the anchor's window of that input), its reduce axes whole,
// into a shared-memory buffer that the anchor then reads instead of P's
// output. Softmax's row max and row sum, LayerNorm's mean and variance, or
// an element-wise intermediate kept on chip: one kernel, one read of the
// input.
//
// Where P's point sits in a buffer is affine in the tile's offsets: each
// of P's spatial axes starts where the anchor's window of P's output does,
// so P reads a buffer of the kernel (a shared tile the anchor copied, or an
// earlier producer's) whenever its access minus that buffer's origin is the
// same constant for every tile, and lies inside it.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"
#include "TileIR.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

/// constant + sum(coeffs[a] * offset_a) over the anchor's tile offsets.
struct LinearForm {
  SmallVector<int64_t> coeffs;
  int64_t constant = 0;
};

/// Where a window of the anchor starts, as a form of its tile offsets.
LinearForm originOf(const WindowDim &d) {
  return {d.coeffs, d.constant + d.lo};
}

/// The threads of a producer computed in a block of `blockThreads`: a
/// reduction keeps a warp (or the block) on its innermost reduce axis,
/// combined across threads, and spreads the rest over its spatial axes
/// (innermost first, powers of two dividing the region) so that the
/// threads number the block, as a cross-thread combine needs; an
/// element-wise producer spreads the block over its spatial axes.
SmallVector<int64_t> producerThreads(ComputeOp p, ArrayRef<int64_t> tile,
                                     int64_t blockThreads) {
  SmallVector<AxisAttr> axes = p.getAxisList();
  SmallVector<int64_t> threads(axes.size(), 1);
  std::optional<unsigned> reduce;
  for (unsigned a = 0; a < axes.size(); ++a)
    if (axes[a].isReduce())
      reduce = a;
  bool tree = reduce && llvm::isPowerOf2_64(blockThreads);
  int64_t budget =
      tree ? blockThreads / std::min<int64_t>(blockThreads, 32) : blockThreads;
  for (int a = axes.size() - 1; a >= 0; --a) {
    if (axes[a].isReduce())
      continue;
    int64_t best = 1;
    for (int64_t t = 1; t <= std::min(budget, tile[a]); ++t)
      if (tile[a] % t == 0 && (!tree || llvm::isPowerOf2_64(t)))
        best = t;
    threads[a] = best;
    budget /= best;
  }
  if (tree) {
    int64_t spatial = 1;
    for (int64_t t : threads)
      spatial *= t;
    threads[*reduce] = blockThreads / spatial;
  }
  return threads;
}

/// resolveComputeAt's steps over the producers the schedule attaches, with
/// what they share: the producers in program order (`found`), the ops of
/// the kernel (`attachedOps`), and what each resolves to (`result`).
class ComputeAtResolver {
public:
  ComputeAtResolver(RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                    const TilingPlan &plan, ArrayRef<StringAttr> inlined)
      : rw(rw), op(op), schedule(schedule), plan(plan), inlined(inlined),
        ctx(op.getContext()), numAnchorAxes(plan.axes.size()),
        blockThreads(schedule.getNumThreads()) {}

  FailureOr<std::vector<AttachedProducer>> resolve();

private:
  InFlightDiagnostic errAt(unsigned n) {
    AttachAttr at = found[n].second;
    return op.emitOpError() << "schedule: compute_at '"
                            << at.getCompute().getValue() << "' at '"
                            << at.getAxis().getValue() << "': ";
  }
  /// Offsets of the axes that index no tile (neither blocked nor stepped by
  /// the k-loop) are always zero: their coefficients do not matter.
  SmallVector<int64_t> moving(SmallVector<int64_t> coeffs) const {
    for (unsigned a = 0; a < numAnchorAxes; ++a)
      if (!llvm::is_contained(plan.blockedAxes, a) &&
          (!plan.kAxis || a != *plan.kAxis))
        coeffs[a] = 0;
    return coeffs;
  }
  /// An anchor window as a region: its origin a form of the moving tile
  /// offsets (lo folded into the constant), its size.
  SmallVector<WindowDim> asRegion(const InputWindow &w) const {
    SmallVector<WindowDim> dims;
    for (const WindowDim &wd : w.dims) {
      LinearForm f = originOf(wd);
      WindowDim r;
      r.coeffs = moving(f.coeffs);
      r.constant = f.constant;
      r.size = wd.size;
      dims.push_back(std::move(r));
    }
    return dims;
  }

  /// Regions are linear forms of the tile offsets: a window read through
  /// a floordiv or mod (of `map`) has none.
  LogicalResult checkLinearWindow(unsigned n, const InputWindow &w,
                                  AffineMap map, StringRef reader) {
    std::optional<unsigned> d = w.firstQuasiAffineDim();
    if (!d)
      return success();
    std::string expr;
    llvm::raw_string_ostream os(expr);
    map.getResult(*d).print(os);
    return errAt(n) << reader << " reads through '" << expr
                    << "'; a producer computed at a tile is read, and reads, "
                       "through linear accesses";
  }

  LogicalResult findProducers();
  LogicalResult checkProducer(unsigned n);
  LogicalResult readRegion(unsigned n, SmallVector<WindowDim> &region,
                           std::optional<unsigned> &anchorInput);
  SmallVector<WindowDim> readerWindow(const AttachedProducer &reader,
                                      unsigned j) const;
  LogicalResult checkTileLoop(unsigned n, ArrayRef<WindowDim> region);
  LogicalResult planProducer(unsigned n);
  LogicalResult checkStoredOutput(unsigned n);
  LogicalResult resolveSources(unsigned n);
  std::optional<SmallVector<int64_t>>
  placeInBuffer(const AttachedProducer &ap, const InputWindow &pw,
                ArrayRef<WindowDim> buf) const;
  LogicalResult checkNothingBetween(unsigned n);

  RewriterBase &rw;
  ComputeOp op;
  ScheduleAttr schedule;
  const TilingPlan &plan;
  ArrayRef<StringAttr> inlined;
  MLIRContext *ctx;
  unsigned numAnchorAxes;
  int64_t blockThreads;
  SmallVector<std::pair<ComputeOp, AttachAttr>> found;
  SmallVector<Operation *> attachedOps;
  std::vector<AttachedProducer> result;
};

} // namespace

/// The producers, found and ordered as the program runs them.
LogicalResult ComputeAtResolver::findProducers() {
  for (AttachAttr at : schedule.getComputeAt()) {
    StringRef name = at.getCompute().getValue();
    FailureOr<ComputeOp> p = findNamedCompute(op, name, [&]() {
      return op.emitOpError() << "schedule: compute_at '" << name << "': ";
    });
    if (failed(p))
      return failure();
    found.push_back({*p, at});
  }
  llvm::sort(found, [](auto &x, auto &y) {
    return x.first->isBeforeInBlock(y.first);
  });
  attachedOps = {op};
  for (auto &entry : found)
    attachedOps.push_back(entry.first);
  return success();
}

/// Producer `n` on its own: where it is, what it reads, the producers the
/// schedule inlines substituted into it.
LogicalResult ComputeAtResolver::checkProducer(unsigned n) {
  ComputeOp p = found[n].first;
  if (!p->isBeforeInBlock(op))
    return errAt(n) << "it comes after " << quotedName(op)
                    << ", so it produces nothing " << quotedName(op)
                    << " reads (a consumer goes to reverse_compute_at)";
  if (p.getScheduleAttr())
    return errAt(n) << "it has its own schedule; an attached producer runs "
                       "in "
                    << quotedName(op) << "'s kernel, on its threads";
  FailureOr<ComputeOp> withInlined =
      inlineNamedProducers(rw, p, inlined, /*mustRead=*/false);
  if (failed(withInlined))
    return failure();
  p = *withInlined;
  found[n].first = p;
  attachedOps[1 + n] = p;
  if (p.getOutputs().size() != 1)
    return errAt(n) << "it has " << p.getOutputs().size()
                    << " outputs; compute_at attaches a compute with one";
  Value out = p.getOutputs()[0];
  for (Value anchorOut : op.getOutputs())
    if (llvm::is_contained(p.getInputs(), anchorOut))
      return errAt(n) << "it reads the output of " << quotedName(op)
                      << ", which reads its output: a cycle";
  if (llvm::is_contained(p.getInputs(), out))
    return errAt(n) << "it reads its own output";
  for (AxisAttr axis : p.getAxisList())
    if (axis.isReduce() && axis.isDynamic())
      return errAt(n) << "its reduce axis '" << axis.getName()
                      << "' has a dynamic extent; a producer's reduction "
                         "runs whole in one tile, of static size";
  if (llvm::count(op.getInputs(), out) > 1)
    return errAt(n) << quotedName(op)
                    << " reads its output through two accesses; attach a "
                       "producer read through one";
  return success();
}

/// Reader `reader`'s window of its input `j`, its axes' offsets
/// substituted: a form of the anchor's tile offsets.
SmallVector<WindowDim>
ComputeAtResolver::readerWindow(const AttachedProducer &reader,
                                unsigned j) const {
  SmallVector<WindowDim> dims;
  for (const WindowDim &qd : reader.plan.windows[j].dims) {
    WindowDim r;
    r.coeffs.assign(numAnchorAxes, 0);
    r.constant = qd.constant + qd.lo;
    r.size = qd.size;
    for (auto [qa, c] : llvm::enumerate(qd.coeffs)) {
      if (c == 0)
        continue;
      const WindowDim &o = reader.origin[qa];
      r.constant += c * o.constant;
      for (unsigned a = 0; a < numAnchorAxes; ++a)
        r.coeffs[a] += c * o.coeffs[a];
    }
    r.coeffs = moving(r.coeffs);
    dims.push_back(std::move(r));
  }
  return dims;
}

/// The region of producer `n`'s output: the union of the windows its
/// readers in the kernel (the anchor, `anchorInput`, and the producers
/// attached after it) read, as forms of the anchor's tile offsets.
LogicalResult
ComputeAtResolver::readRegion(unsigned n, SmallVector<WindowDim> &region,
                              std::optional<unsigned> &anchorInput) {
  Value out = found[n].first.getOutputs()[0];
  bool any = false;
  auto addReader = [&](ArrayRef<WindowDim> dims,
                       StringRef reader) -> LogicalResult {
    if (!any) {
      region.assign(dims.begin(), dims.end());
      any = true;
      return success();
    }
    for (auto [d, wd] : llvm::enumerate(dims)) {
      WindowDim &r = region[d];
      if (wd.coeffs != r.coeffs)
        return errAt(n) << reader << " reads it at a region that moves "
                        << "differently with the tiles from another reader's";
      int64_t lo = std::min(r.constant, wd.constant);
      int64_t hi = std::max(r.constant + r.size, wd.constant + wd.size);
      r.constant = lo;
      r.size = hi - lo;
    }
    return success();
  };
  for (auto [i, in] : llvm::enumerate(op.getInputs()))
    if (in == out)
      anchorInput = i;
  if (anchorInput &&
      (failed(checkLinearWindow(n, plan.windows[*anchorInput],
                                op.getInputMap(*anchorInput),
                                quotedName(op))) ||
       failed(addReader(asRegion(plan.windows[*anchorInput]),
                        quotedName(op)))))
    return failure();
  for (unsigned q = n + 1; q < found.size(); ++q) {
    AttachedProducer &reader = result[q];
    for (auto [j, in] : llvm::enumerate(reader.producer.getInputs()))
      if (in == out &&
          (failed(checkLinearWindow(n, reader.plan.windows[j],
                                    reader.producer.getInputMap(j),
                                    quotedName(reader.producer))) ||
           failed(addReader(readerWindow(reader, j),
                            quotedName(reader.producer)))))
        return failure();
  }
  if (!any)
    return errAt(n) << "neither " << quotedName(op)
                    << " nor a producer attached after it reads its output; "
                       "compute_at attaches a producer of the scheduled "
                       "compute's inputs";
  return success();
}

/// The tile loop producer `n` is attached at: a blocked axis; its region
/// may change only with the blocked axes up to it.
LogicalResult ComputeAtResolver::checkTileLoop(unsigned n,
                                               ArrayRef<WindowDim> region) {
  StringRef axisName = found[n].second.getAxis().getValue();
  auto blocked = llvm::find_if(plan.blockedAxes, [&](unsigned a) {
    return plan.axes[a].getName() == axisName;
  });
  if (blocked == plan.blockedAxes.end()) {
    InFlightDiagnostic d = errAt(n);
    d << "it is not an axis " << quotedName(op)
      << "'s schedule binds to blocks (";
    llvm::interleaveComma(plan.blockedAxes, d, [&](unsigned a) {
      d << "'" << plan.axes[a].getName() << "'";
    });
    return d << "); a producer is computed at a tile loop";
  }
  unsigned level = blocked - plan.blockedAxes.begin();
  for (auto [d, r] : llvm::enumerate(region)) {
    for (unsigned a = 0; a < numAnchorAxes; ++a) {
      if (r.coeffs[a] == 0)
        continue;
      if (plan.kAxis && a == *plan.kAxis)
        return errAt(n) << "it is read at points that change with '"
                        << plan.axes[a].getName()
                        << "', the reduce axis the k-loop steps through; a "
                           "producer is computed once per tile, before the "
                           "k-loop";
      auto pos = llvm::find(plan.blockedAxes, a);
      if (pos != plan.blockedAxes.end() &&
          unsigned(pos - plan.blockedAxes.begin()) > level)
        return errAt(n) << quotedName(op)
                        << " reads it at points that change with '"
                        << plan.axes[a].getName() << "', a tile loop inside '"
                        << axisName << "': the region at '" << axisName
                        << "' would span every '" << plan.axes[a].getName()
                        << "' tile (attach it at '" << plan.axes[a].getName()
                        << "')";
      if (r.coeffs[a] < 0)
        return errAt(n) << "it is read with a negative stride along '"
                        << plan.axes[a].getName()
                        << "'; the region a tile reads must grow with its "
                           "offset";
    }
    if (r.constant < 0)
      return errAt(n) << "it is read before index 0 of dimension #" << d
                      << "; the region a tile reads must lie inside it";
  }
  return success();
}

/// Producer `n`'s own plan once its region is known: the anchor's map of
/// the region's buffer, and P's tile: each spatial axis spans the region of
/// the output dimension it indexes, each reduce axis its whole extent.
LogicalResult ComputeAtResolver::planProducer(unsigned n) {
  AttachedProducer &ap = result[n];
  ComputeOp p = ap.producer;
  ArrayRef<WindowDim> region = ap.region;
  if (ap.anchorInput) {
    // The anchor reads the buffer through its window's map, shifted to
    // where its window starts in the region.
    const InputWindow &w = plan.windows[*ap.anchorInput];
    SmallVector<AffineExpr> exprs;
    for (auto [d, e] : llvm::enumerate(w.localMap.getResults()))
      exprs.push_back(e + (originOf(w.dims[d]).constant - region[d].constant));
    ap.anchorMap = AffineMap::get(numAnchorAxes, 0, exprs, ctx);
  }
  SmallVector<AxisAttr> pAxes = p.getAxisList();
  unsigned numP = pAxes.size();
  SmallVector<int64_t> tile(numP, 1);
  ap.outputDim.assign(numP, -1);
  for (auto [d, e] : llvm::enumerate(p.getOutputMap(0).getResults())) {
    unsigned a = cast<AffineDimExpr>(e).getPosition();
    tile[a] = region[d].size;
    ap.outputDim[a] = d;
  }
  ap.origin.assign(numP, WindowDim());
  for (auto [a, axis] : llvm::enumerate(pAxes)) {
    ap.origin[a].coeffs.assign(numAnchorAxes, 0);
    if (axis.isReduce()) {
      tile[a] = axis.getExtent();
      continue;
    }
    if (ap.outputDim[a] < 0)
      return errAt(n) << "its axis '" << axis.getName()
                      << "' does not index its output";
    ap.origin[a] = region[ap.outputDim[a]];
  }
  SmallVector<int64_t> threads = producerThreads(p, tile, blockThreads);
  auto pSchedule = ScheduleAttr::get(
      ctx, tile, {}, threads, {}, {}, RasterOrder::row, 1, 1, 1, {}, {}, {},
      1, true, {}, {}, {}, {}, false, WarpSpecialization::none, {},
      /*fastMath=*/true);
  FailureOr<TilingPlan> pPlan = planTiling(p, pSchedule);
  if (failed(pPlan))
    return failure();
  ap.plan = std::move(*pPlan);
  // Its tiles start where the region does, not at multiples of its tile.
  for (auto [j, w] : llvm::enumerate(ap.plan.windows))
    if (failed(checkLinearWindow(n, w, p.getInputMap(j), "it")))
      return failure();
  return success();
}

/// Producer `n`'s output is stored too when anything else reads it: then
/// each element from one block (the region is a blocked axis's tile
/// exactly, and every blocked axis with several tiles indexes it).
LogicalResult ComputeAtResolver::checkStoredOutput(unsigned n) {
  AttachedProducer &ap = result[n];
  ap.keepOutput = isReadElsewhere(ap.producer.getOutputs()[0], attachedOps);
  if (!ap.keepOutput)
    return success();
  llvm::SmallBitVector used(numAnchorAxes);
  bool exact = true;
  for (const WindowDim &r : ap.region) {
    unsigned nonzero = 0;
    unsigned axis = 0;
    for (unsigned a = 0; a < numAnchorAxes; ++a)
      if (r.coeffs[a] != 0) {
        ++nonzero;
        axis = a;
      }
    exact &= nonzero == 1 && r.coeffs[axis] == 1 && r.constant == 0 &&
             r.size == plan.tile[axis];
    if (nonzero)
      used.set(axis);
  }
  for (auto [d, a] : llvm::enumerate(plan.blockedAxes))
    if (!used.test(a) && plan.tileCounts[d] != 1)
      exact = false;
  if (!exact)
    return errAt(n) << "its output is read outside the kernel (a function "
                       "argument, or another op), and the regions the "
                       "tiles compute overlap: it would be written by "
                       "several blocks; keep it internal or give it its "
                       "own kernel";
  return success();
}

/// Where `ap`'s window `pw` of an input starts in a buffer of region
/// `buf`, per dimension; none when it moves differently with the tiles or
/// does not lie inside.
std::optional<SmallVector<int64_t>>
ComputeAtResolver::placeInBuffer(const AttachedProducer &ap,
                                 const InputWindow &pw,
                                 ArrayRef<WindowDim> buf) const {
  unsigned numP = ap.plan.axes.size();
  SmallVector<int64_t> shift;
  for (auto [d, pd] : llvm::enumerate(pw.dims)) {
    // P's access at its local point x: sum(c_p * x_p) + c + sum(c_p *
    // origin_p), less the buffer's origin.
    SmallVector<int64_t> coeffs(numAnchorAxes, 0);
    std::optional<int64_t> constant = pd.constant;
    for (unsigned pa = 0; pa < numP && constant; ++pa) {
      if (pd.coeffs[pa] == 0)
        continue;
      std::optional<int64_t> term =
          llvm::checkedMul(pd.coeffs[pa], ap.origin[pa].constant);
      constant = term ? llvm::checkedAdd(*constant, *term) : std::nullopt;
      for (unsigned a = 0; a < numAnchorAxes; ++a)
        coeffs[a] += pd.coeffs[pa] * ap.origin[pa].coeffs[a];
    }
    if (!constant || moving(coeffs) != buf[d].coeffs)
      return std::nullopt;
    // The local window [lo, lo + size) shifted into the buffer.
    int64_t at = *constant - buf[d].constant + pd.lo;
    if (at < 0 || at + pd.size > buf[d].size)
      return std::nullopt;
    shift.push_back(at);
  }
  return shift;
}

/// Where producer `n` reads each input: a buffer of the kernel that holds
/// what it reads (an earlier producer's region, required; a tile an anchor
/// without an accumulator copies first), else global memory.
LogicalResult ComputeAtResolver::resolveSources(unsigned n) {
  AttachedProducer &ap = result[n];
  for (auto [j, in] : llvm::enumerate(ap.producer.getInputs())) {
    AttachedProducer::Source src;
    // Candidate buffers: (their region, the producer or anchor input).
    SmallVector<std::pair<SmallVector<WindowDim>, AttachedProducer::Source>>
        candidates;
    std::optional<unsigned> producerBuf;
    for (unsigned q = 0; q < n; ++q)
      if (result[q].producer.getOutputs()[0] == in) {
        producerBuf = q;
        AttachedProducer::Source c;
        c.producer = q;
        candidates.push_back({result[q].region, c});
      }
    // (An anchor with an accumulator copies its tiles after the
    // producers run.)
    if (!producerBuf && !plan.useFragments)
      for (auto [i, anchorIn] : llvm::enumerate(op.getInputs()))
        if (anchorIn == in && plan.cached.test(i) &&
            !plan.windows[i].firstQuasiAffineDim()) {
          AttachedProducer::Source c;
          c.anchorInput = i;
          candidates.push_back({asRegion(plan.windows[i]), c});
        }
    for (auto &[buf, cand] : candidates) {
      std::optional<SmallVector<int64_t>> shift =
          placeInBuffer(ap, ap.plan.windows[j], buf);
      if (!shift)
        continue;
      src = cand;
      src.at = *shift;
      break;
    }
    if (producerBuf && !src.at)
      return errAt(n) << "it reads '"
                      << result[*producerBuf].producer.getNameAttr().getValue()
                      << "' at points outside the region that producer is "
                         "computed for at its tile";
    ap.sources.push_back(src);
  }
  return success();
}

/// Nothing between producer `n` and the anchor may write what it reads (it
/// now runs at the anchor), nor use its output but the attached computes.
LogicalResult ComputeAtResolver::checkNothingBetween(unsigned n) {
  ComputeOp p = result[n].producer;
  if (Operation *between = findWriteBetween(p, op, p.getInputs()))
    return errAt(n) << "'" << between->getName() << "' between it and "
                    << quotedName(op) << " writes a memref it reads";
  for (Operation *user : p.getOutputs()[0].getUsers()) {
    if (llvm::is_contained(attachedOps, user) ||
        user->getBlock() != op->getBlock() || !p->isBeforeInBlock(user) ||
        !user->isBeforeInBlock(op))
      continue;
    return errAt(n) << "'" << user->getName() << "' between it and "
                    << quotedName(op)
                    << " uses its output, which is now computed later";
  }
  return success();
}

FailureOr<std::vector<AttachedProducer>> ComputeAtResolver::resolve() {
  if (failed(findProducers()))
    return failure();
  unsigned numAttached = found.size();
  // 1. Each producer on its own, in program order.
  for (unsigned n = 0; n < numAttached; ++n)
    if (failed(checkProducer(n)))
      return failure();
  // 2. Regions, consumers first (reverse program order), since a producer
  // computes what the producers attached after it read.
  result.resize(numAttached);
  for (int n = numAttached - 1; n >= 0; --n) {
    AttachedProducer &ap = result[n];
    ap.producer = found[n].first;
    SmallVector<WindowDim> region;
    std::optional<unsigned> anchorInput;
    if (failed(readRegion(n, region, anchorInput)) ||
        failed(checkTileLoop(n, region)))
      return failure();
    ap.region = region;
    ap.anchorInput = anchorInput;
    if (failed(planProducer(n)) || failed(checkStoredOutput(n)))
      return failure();
  }
  // 3. Where each producer reads its inputs (program order).
  for (unsigned n = 0; n < numAttached; ++n)
    if (failed(resolveSources(n)) || failed(checkNothingBetween(n)))
      return failure();
  return std::move(result);
}

FailureOr<std::vector<AttachedProducer>>
tiling::resolveComputeAt(RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                         const TilingPlan &plan,
                         ArrayRef<StringAttr> inlined) {
  if (schedule.getComputeAt().empty())
    return std::vector<AttachedProducer>();
  return ComputeAtResolver(rw, op, schedule, plan, inlined).resolve();
}

void tiling::emitAttachedProducers(RewriterBase &rw, Location loc,
                                   const TileFrame &frame,
                                   ArrayRef<Value> anchorBuffers,
                                   MutableArrayRef<AttachedProducer> producers) {
  MLIRContext *ctx = rw.getContext();
  for (AttachedProducer &ap : producers) {
    ComputeOp p = ap.producer;
    const TilingPlan &pp = ap.plan;
    Location pLoc = phaseLoc(loc, "compute_at of " + quotedName(p));
    unsigned numP = pp.axes.size();
    SmallVector<Value> offsets(numP), bounds(numP);
    for (unsigned a = 0; a < numP; ++a) {
      if (ap.outputDim[a] < 0) {
        offsets[a] = constIndex(rw, pLoc, 0);
        bounds[a] = extentValue(rw, pLoc, pp, a);
        continue;
      }
      offsets[a] = windowOrigin(rw, pLoc, ap.origin[a], frame.offsets);
      // The points of the region inside P's extent: [0, tile) clipped.
      Value rest = arith::SubIOp::create(rw, pLoc, extentValue(rw, pLoc, pp, a),
                                         offsets[a]);
      Value clipped = arith::MinSIOp::create(
          rw, pLoc, constIndex(rw, pLoc, pp.tile[a]), rest);
      bounds[a] =
          arith::MaxSIOp::create(rw, pLoc, clipped, constIndex(rw, pLoc, 0));
    }

    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    for (auto [j, in] : llvm::enumerate(p.getInputs())) {
      const AttachedProducer::Source &src = ap.sources[j];
      SmallVector<Value> origins;
      Value source = in;
      if (src.at) {
        source = src.producer ? producers[*src.producer].buffer
                              : anchorBuffers[src.anchorInput];
        for (int64_t at : *src.at)
          origins.push_back(constIndex(rw, pLoc, at));
      } else {
        for (const WindowDim &d : pp.windows[j].dims)
          origins.push_back(windowOrigin(rw, pLoc, d, offsets));
      }
      ins.push_back(tileView(rw, pLoc, source, origins, pp.windows[j].shape));
      maps.push_back(pp.windows[j].localMap);
    }

    // Its region of the output, in shared memory, indexed by P's local
    // point (each output dimension starts where the region does).
    Value out = p.getOutputs()[0];
    Type elem = cast<MemRefType>(out.getType()).getElementType();
    SmallVector<int64_t> shape;
    for (const WindowDim &r : ap.region)
      shape.push_back(r.size);
    ap.buffer = AllocSharedOp::create(
        rw, phaseLoc(loc, "shared region of " + quotedName(p) + " (compute_at)"),
        sharedTileType(shape, elem, {}), ArrayAttr(), SwizzleAttr());
    maps.push_back(p.getOutputMap(0));

    SmallVector<Attribute> axes;
    for (unsigned a = 0; a < numP; ++a)
      axes.push_back(AxisAttr::get(ctx, pp.axes[a].getName(),
                                   pp.axes[a].getKind(), pp.tile[a]));
    auto tc = TileComputeOp::create(
        rw, pLoc, rw.getArrayAttr(axes), rw.getDenseI64ArrayAttr(pp.threads),
        bounds, ins, ValueRange{ap.buffer}, rw.getAffineMapArrayAttr(maps),
        p.getCombinerAttr(), p.getIdentityAttr(), UnitAttr(),
        FragmentLayoutAttrInterface(), IntegerAttr());
    cloneBodyWithOffsets(p, tc.getBody(), offsets);
    if (!p.getReducer().empty()) {
      IRMapping mapping;
      p.getReducer().cloneInto(&tc.getReducer(), mapping);
    }
    if (ap.keepOutput) {
      SmallVector<Value> origins;
      for (const WindowDim &r : ap.region)
        origins.push_back(windowOrigin(rw, pLoc, r, frame.offsets));
      StoreTileOp::create(
          rw, phaseLoc(loc, "store of " + quotedName(p) + " (compute_at)"),
          ap.buffer, out, origins, /*tensor_map=*/Value(), /*vector=*/1);
    }
  }
}

void tiling::eraseAttachedProducers(RewriterBase &rw,
                                    ArrayRef<AttachedProducer> producers) {
  for (const AttachedProducer &ap : llvm::reverse(producers))
    rw.eraseOp(ap.producer);
}

LogicalResult tiling::checkInlinedAreRead(ComputeOp op) {
  ScheduleAttr schedule = op.getScheduleAttr();
  if (schedule.getComputeAt().empty())
    return success();
  for (StringAttr name : schedule.getComputeInline()) {
    auto err = [&]() {
      return op.emitOpError()
             << "schedule: compute_inline '" << name.getValue() << "': ";
    };
    FailureOr<ComputeOp> t = findNamedCompute(op, name.getValue(), err);
    if (failed(t))
      return failure();
    Value out = t->getOutputs().front();
    bool read = llvm::is_contained(op.getInputs(), out);
    for (AttachAttr at : schedule.getComputeAt())
      for (Operation &other : *op->getBlock())
        if (auto c = dyn_cast<ComputeOp>(other);
            c && c.getNameAttr() == at.getCompute() &&
            llvm::is_contained(c.getInputs(), out))
          read = true;
    if (!read)
      return err() << "neither " << quotedName(op)
                   << " nor a producer it attaches with compute_at reads its "
                      "output";
  }
  return success();
}
