//===- ApplySchedule.cpp - scheduled ext.compute to ext.kernel ------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"
#include "ext/Support/TileWork.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace ext {
#define GEN_PASS_DEF_EXTAPPLYSCHEDULE
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// One access expression of an input, split for tiling: over a tile whose
/// origin is `o`, the expression sum(coeff_a * x_a) + constant takes values in
/// [origin, origin + size), and the point x's element sits at local(x - o).
struct WindowDim {
  SmallVector<int64_t> coeffs; // one per axis
  int64_t constant = 0;
  int64_t lo = 0;   // min over the tile box of sum(coeff_a * x_a)
  int64_t size = 1; // window extent
};

/// The window of one input over a tile: per result, its extent and the
/// tile-local access map.
struct InputWindow {
  SmallVector<WindowDim> dims;
  AffineMap localMap;
  SmallVector<int64_t> shape;
};

/// Everything ext-apply-schedule derives from a compute and its schedule.
struct TilingPlan {
  SmallVector<AxisAttr> axes;
  SmallVector<int64_t> extents, tile, threads;
  SmallVector<unsigned> blockedAxes; // spatial axes indexing the tile grid
  SmallVector<int64_t> tileCounts;
  std::optional<unsigned> kAxis; // the reduce axis split into iterations
  int64_t iters = 1;
  bool useFragments = false;
  SmallVector<unsigned> spatialAxes;
  llvm::SmallBitVector cached;
  SmallVector<CacheAttr> cacheAttrs; // per input, null if not cached
  SmallVector<CacheAttr> outputCache; // per output, null if not staged
  SmallVector<InputWindow> windows;  // per input
};

FailureOr<TilingPlan> planTiling(ComputeOp op, ScheduleAttr schedule) {
  TilingPlan plan;
  plan.axes = op.getAxisList();
  plan.extents = op.getExtents();
  plan.tile = llvm::to_vector(schedule.getTile());
  plan.threads = llvm::to_vector(schedule.getThreads());
  unsigned numAxes = plan.axes.size();

  bool threadReduce = false;
  for (unsigned a = 0; a < numAxes; ++a) {
    if (plan.axes[a].isSpatial()) {
      plan.spatialAxes.push_back(a);
      continue;
    }
    if (plan.threads[a] > 1)
      threadReduce = true;
    if (plan.tile[a] < plan.extents[a])
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
    plan.tileCounts.push_back(llvm::divideCeil(plan.extents[a], plan.tile[a]));
  }
  if (plan.tileCounts.empty())
    plan.tileCounts.push_back(1);
  if (plan.kAxis)
    plan.iters = llvm::divideCeil(plan.extents[*plan.kAxis],
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
        if (failed(verifySwizzleOnTile(
                swizzle, llvm::product_of(shape), [&]() {
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
      WindowDim d;
      SmallVector<int64_t> flat;
      if (failed(getFlattenedAffineExpr(expr, numAxes, 0, &flat)) ||
          flat.size() != numAxes + 1) {
        std::string s;
        llvm::raw_string_ostream os(s);
        expr.print(os);
        return op.emitOpError() << "access '" << s << "' of input #" << i
                                << " is not linear in the axes; "
                                   "ext-apply-schedule tiles linear accesses";
      }
      d.coeffs.assign(flat.begin(), flat.end() - 1);
      d.constant = flat.back();
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
      if (!size)
        return op.emitOpError() << "the tile window of input #" << i
                                << " overflows a 64-bit size";
      d.lo = *lo;
      d.size = *size;
      local.push_back(e - d.lo);
      w.shape.push_back(d.size);
      w.dims.push_back(std::move(d));
    }
    w.localMap = AffineMap::get(numAxes, 0, local, ctx);
    if (plan.cached.test(i) &&
        failed(AllocSharedOp::computeAlignedStrides(
            w.shape, plan.cacheAttrs[i].getAlign())))
      return op.emitOpError() << "the shared tile of input #" << i
                              << " overflows a 64-bit size";
    if (plan.cached.test(i))
      if (SwizzleAttr swizzle = plan.cacheAttrs[i].getSwizzle()) {
        int64_t n = 1;
        for (int64_t s : w.shape)
          n *= s; // fits: checked with the padded strides above
        if (failed(verifySwizzleOnTile(swizzle, n, [&]() {
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

/// Builds the code of one tile: offsets and valid extents of every axis.
struct TileFrame {
  SmallVector<Value> offsets; // per axis
  SmallVector<Value> bounds;  // per axis
};

/// min(tile, extent - offset), folded to `tile` when the axis divides evenly.
Value validExtent(OpBuilder &b, Location loc, int64_t tile, int64_t extent,
                  Value offset) {
  if (extent % tile == 0)
    return constIndex(b, loc, tile);
  Value rest =
      arith::SubIOp::create(b, loc, constIndex(b, loc, extent), offset);
  return arith::MinSIOp::create(b, loc, constIndex(b, loc, tile), rest);
}

TileFrame buildFrame(OpBuilder &b, Location loc, const TilingPlan &plan,
                     ValueRange coords) {
  unsigned numAxes = plan.axes.size();
  TileFrame f;
  Value zero = constIndex(b, loc, 0);
  f.offsets.assign(numAxes, zero);
  for (auto [d, a] : llvm::enumerate(plan.blockedAxes))
    f.offsets[a] = arith::MulIOp::create(b, loc, coords[d],
                                         constIndex(b, loc, plan.tile[a]));
  for (unsigned a = 0; a < numAxes; ++a)
    f.bounds.push_back(
        plan.axes[a].isSpatial()
            ? validExtent(b, loc, plan.tile[a], plan.extents[a], f.offsets[a])
            : constIndex(b, loc, plan.extents[a]));
  return f;
}

/// constant + sum(coeff_a * offset_a): where a window starts in its input.
Value windowOrigin(OpBuilder &b, Location loc, const WindowDim &d,
                   ArrayRef<Value> offsets) {
  Value origin = constIndex(b, loc, d.constant + d.lo);
  for (auto [a, c] : llvm::enumerate(d.coeffs)) {
    if (c == 0)
      continue;
    Value term = c == 1 ? offsets[a]
                        : arith::MulIOp::create(b, loc, offsets[a],
                                                constIndex(b, loc, c))
                              .getResult();
    origin = arith::AddIOp::create(b, loc, origin, term);
  }
  return origin;
}

/// Null when the padded tile's size overflows (planTiling checks first).
MemRefType sharedTileType(ArrayRef<int64_t> shape, Type elem,
                          ArrayRef<StorageAlignAttr> aligns) {
  MLIRContext *ctx = elem.getContext();
  FailureOr<SmallVector<int64_t>> strides =
      AllocSharedOp::computeAlignedStrides(shape, aligns);
  if (failed(strides))
    return {};
  auto layout = StridedLayoutAttr::get(ctx, 0, *strides);
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get(shape, elem, layout, space);
}

/// A static-size view of `source` starting at `origins`.
Value tileView(OpBuilder &b, Location loc, Value source, ValueRange origins,
               ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> offs(origins.begin(), origins.end());
  SmallVector<OpFoldResult> szs, strides;
  for (int64_t s : sizes) {
    szs.push_back(b.getIndexAttr(s));
    strides.push_back(b.getIndexAttr(1));
  }
  return memref::SubViewOp::create(b, loc, source, offs, szs, strides);
}

/// Copies `op`'s body into the empty region `dst`, turning every ext.index
/// into (tile-local index + the axis' tile offset).
void cloneBodyWithOffsets(ComputeOp op, Region &dst, ArrayRef<Value> offsets) {
  IRMapping mapping;
  op.getBody().cloneInto(&dst, mapping);
  dst.walk([&](IndexOp index) {
    // The verifier guarantees the axis exists.
    unsigned pos = *op.getAxisPosition(index.getAxis());
    OpBuilder ib(index->getContext());
    ib.setInsertionPointAfter(index);
    Value global = arith::AddIOp::create(ib, index.getLoc(), index.getResult(),
                                         offsets[pos]);
    index.getResult().replaceAllUsesExcept(global, global.getDefiningOp());
  });
}

ArrayAttr axesAttr(MLIRContext *ctx, const TilingPlan &plan,
                   ArrayRef<unsigned> which) {
  SmallVector<Attribute> attrs;
  for (unsigned a : which)
    attrs.push_back(AxisAttr::get(ctx, plan.axes[a].getName(),
                                  plan.axes[a].getKind(), plan.tile[a]));
  return ArrayAttr::get(ctx, attrs);
}

/// `loc` named after the phase of the schedule an op implements: the ops
/// lowered from it keep the name, so diagnostics and race reports tell the
/// copy, the compute and the epilogue of one ext.compute apart.
Location phaseLoc(Location loc, const Twine &phase) {
  return NameLoc::get(StringAttr::get(loc->getContext(), phase), loc);
}

/// Resolves the schedule's decomposition for the chip: `auto` becomes its
/// cost model's choice, a Stream-K attribute gets the SM count.
FailureOr<TileDecompositionAttrInterface>
resolveDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                     int64_t tiles, int64_t iters, int64_t tileK,
                     const ApplyScheduleOptions &options) {
  const DeviceFacts &device = options.device;
  MLIRContext *ctx = op.getContext();
  auto smsOr = [&](int64_t own) { return own ? own : device.numSMs; };
  TileDecompositionAttrInterface resolved = d;
  std::string table;
  if (auto a = dyn_cast<AutoAttr>(d)) {
    int64_t sms = smsOr(a.getSms());
    if (sms == 0)
      return op.emitOpError()
             << "decomposition " << d
             << " needs the SM count: give `sms = N` or the chip "
                "(ext-apply-schedule{chip=...})";
    SmallVector<tilework::Candidate> candidates = tilework::autoCandidates(
        tiles, iters, sms, tilework::CostModel::forTileK(tileK));
    if (candidates.empty())
      return op.emitOpError() << "decomposition " << d << " found no "
                              << "candidate for " << tiles << " tiles of "
                              << iters << " iterations";
    unsigned best = tilework::pickAuto(candidates);
    const tilework::Plan &p = candidates[best].plan;
    switch (p.kind) {
    case tilework::Kind::DataParallel:
      resolved = DataParallelAttr::get(ctx);
      break;
    case tilework::Kind::SplitKSerial:
    case tilework::Kind::SplitKParallel:
      resolved = SplitKAttr::get(ctx, p.slices,
                                 p.kind == tilework::Kind::SplitKSerial
                                     ? SplitKMode::serial
                                     : SplitKMode::parallel);
      break;
    case tilework::Kind::StreamK:
      resolved = StreamKAttr::get(ctx, p.grid, sms);
      break;
    case tilework::Kind::StreamKDP:
      resolved = StreamKDPAttr::get(ctx, sms);
      break;
    case tilework::Kind::StreamK2Tile:
      resolved = StreamK2TileAttr::get(ctx, sms);
      break;
    }
    llvm::raw_string_ostream os(table);
    for (auto [i, c] : llvm::enumerate(candidates))
      os << "\n  " << (i == best ? "* " : "  ") << c.name << ": utilization "
         << llvm::format("%.3f", c.prediction.utilization) << ", grid "
         << c.prediction.grid << ", waves " << c.prediction.waves
         << ", max iterations per CTA " << c.prediction.maxItersPerCta
         << ", fixups " << c.prediction.fixups;
  } else if (auto a = dyn_cast<StreamKAttr>(d); a && !a.getSms()) {
    resolved = StreamKAttr::get(ctx, a.getGrid(), device.numSMs);
  } else if (auto a = dyn_cast<StreamKDPAttr>(d); a && !a.getSms()) {
    resolved = StreamKDPAttr::get(ctx, device.numSMs);
  } else if (auto a = dyn_cast<StreamK2TileAttr>(d); a && !a.getSms()) {
    resolved = StreamK2TileAttr::get(ctx, device.numSMs);
  }
  if (failed(resolved.verifyProblem([&]() { return op.emitOpError(); }, tiles,
                                    iters, device)))
    return failure();
  if (options.report) {
    double partialCost = tilework::CostModel::forTileK(tileK).partialCost;
    InFlightDiagnostic remark = op.emitRemark();
    remark << "decomposition " << resolved << " for " << tiles << " tiles of "
           << iters << " iterations on " << device.numSMs << " SMs";
    if (std::optional<WorkPrediction> w =
            resolved.predictWork(tiles, iters, device, partialCost)) {
      remark << ": grid " << w->grid << ", waves " << w->waves << ", at most "
             << w->maxUnitsPerCta << " units and " << w->maxItersPerCta
             << " iterations per CTA, " << w->fixups
             << " fixups, predicted utilization "
             << llvm::formatv("{0:f3}", w->utilization).str();
      if (!isa<DataParallelAttr>(resolved))
        if (std::optional<WorkPrediction> dp =
                DataParallelAttr::get(ctx).predictWork(tiles, iters, device,
                                                       partialCost))
          remark << " (data_parallel: "
                 << llvm::formatv("{0:f3}", dp->utilization).str() << ")";
    }
    remark << table;
  }
  return resolved;
}

/// True if a k-step past the reduce extent may run as a full one: every
/// input indexed by the k axis is copied into shared memory (whose copy
/// fills the elements beyond the input with zero), and the body, with those
/// inputs zero, folds to the combiner's identity for every output whatever
/// the other inputs hold (a product under `sum`; not `exp` under `sum`, nor
/// anything under `max`, `min` or `prod`).
bool zeroFillIsIdentity(ComputeOp op, const TilingPlan &plan) {
  unsigned k = *plan.kAxis;
  Block &body = op.getBodyBlock();
  DenseMap<Value, Attribute> known;
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    bool usesK = llvm::any_of(plan.windows[i].dims,
                              [&](const WindowDim &d) { return d.coeffs[k]; });
    if (!usesK)
      continue;
    if (!plan.cached.test(i))
      return false;
    Type elem = body.getArgument(i).getType();
    known[body.getArgument(i)] = Builder(op.getContext()).getZeroAttr(elem);
  }
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumRegions() != 0 || inner.getNumResults() != 1)
      return false;
    SmallVector<Attribute> operands = llvm::map_to_vector(
        inner.getOperands(), [&](Value v) { return known.lookup(v); });
    SmallVector<OpFoldResult> folded;
    if (failed(inner.fold(operands, folded)) || folded.size() != 1)
      return false;
    Attribute value = dyn_cast<Attribute>(folded[0]);
    if (!value)
      value = known.lookup(cast<Value>(folded[0]));
    if (!value)
      return false;
    known[inner.getResult(0)] = value;
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [o, v] : llvm::enumerate(yield.getValues())) {
    Attribute value = known.lookup(v);
    Type elem = v.getType();
    TypedAttr identity =
        op.hasCustomReducer()
            ? dyn_cast<TypedAttr>((*op.getIdentity())[o])
            : getCombinerIdentity(*op.getCombiner(), elem);
    if (!value || !identity)
      return false;
    if (auto f = dyn_cast<FloatAttr>(value)) {
      auto id = dyn_cast<FloatAttr>(identity);
      if (!id || f.getValue().compare(id.getValue()) != llvm::APFloat::cmpEqual)
        return false;
      continue;
    }
    if (value != identity)
      return false;
  }
  return true;
}

/// The shared tile an output is staged in (TVM's cache_write, CUTLASS's
/// epilogue shared storage): the output's tile shape, laid out by the
/// output's `#ext.cache`.
Value createStagingTile(OpBuilder &b, Location loc, unsigned output,
                        ArrayRef<int64_t> shape, Type elem, CacheAttr cache) {
  ArrayRef<StorageAlignAttr> aligns = cache.getAlign();
  MemRefType type = sharedTileType(shape, elem, aligns);
  assert(type && "the verifier bounds tile sizes");
  ArrayAttr alignAttr =
      aligns.empty()
          ? ArrayAttr()
          : b.getArrayAttr(SmallVector<Attribute>(aligns.begin(), aligns.end()));
  return AllocSharedOp::create(
      b, phaseLoc(loc, "shared tile of output " + Twine(output)), type,
      alignAttr, cache.getSwizzle());
}

/// The fragment layout of a schedule: its `layout`, or for an `mma` schedule
/// the instruction's accumulator layout over the warps, the instruction
/// chosen for the chip and the inputs' type when it is `auto`.
FailureOr<FragmentLayoutAttrInterface>
resolveLayout(ComputeOp op, ScheduleAttr schedule, const TilingPlan &plan,
              const ApplyScheduleOptions &options) {
  MmaLayoutAttr mma = schedule.getMma();
  if (!mma)
    return schedule.getLayout();
  StringRef chip = options.chip;
  MmaShape shape = mma.getShape();
  if (shape == MmaShape::automatic) {
    if (chip.empty())
      return op.emitOpError() << "mma = auto needs the chip "
                                 "(ext-apply-schedule{chip=...})";
    if (!matchProductBody(op))
      return op.emitOpError()
             << "mma = auto: the body is not a product under a sum combiner "
                "(C += A * B), which is what matrix instructions compute";
    Type elem =
        cast<MemRefType>(op.getInputs()[0].getType()).getElementType();
    bool nvidia = chip.starts_with("sm_");
    auto divides = [&](int64_t m, int64_t n) {
      ArrayRef<int64_t> warps = schedule.getWarps();
      return plan.tile[plan.spatialAxes[0]] % (warps[0] * m) == 0 &&
             plan.tile[plan.spatialAxes[1]] % (warps[1] * n) == 0;
    };
    if (nvidia && (elem.isF16() || elem.isBF16()))
      shape = MmaShape::m16n8k16;
    else if (nvidia && elem.isF32())
      return op.emitOpError()
             << "mma = auto does not round f32 inputs to tf32; name "
                "#ext.mma<m16n8k8> to accept tf32 products";
    else if (!nvidia && elem.isF16())
      shape = divides(32, 32) ? MmaShape::mfma_32x32x8
                              : MmaShape::mfma_16x16x16;
    else if (!nvidia && elem.isF32())
      shape = MmaShape::mfma_32x32x2;
    else
      return op.emitOpError() << "mma = auto: chip " << chip
                              << " has no matrix instruction ext knows for "
                              << elem << " inputs";
  }
  auto layout =
      MmaLayoutAttr::get(op.getContext(), shape, schedule.getWarps());
  if (!chip.empty() && !layout.existsOn(chip))
    return op.emitOpError() << "mma " << MmaLayoutAttr::get(op.getContext(),
                                                            shape, {})
                            << " does not exist on chip " << chip;
  SmallVector<int64_t> tile, threads;
  for (unsigned a : plan.spatialAxes) {
    tile.push_back(plan.tile[a]);
    threads.push_back(plan.threads[a]);
  }
  auto err = [&]() { return op.emitOpError() << "schedule: "; };
  if (failed(layout.verifyDistribution(err, tile, threads)))
    return failure();
  for (unsigned a = 0; a < plan.axes.size(); ++a)
    if (plan.axes[a].isReduce() && plan.tile[a] % layout.getK() != 0)
      return err() << "tile size " << plan.tile[a] << " of reduce axis '"
                   << plan.axes[a].getName()
                   << "' is not a multiple of the instruction's K = "
                   << layout.getK();
  if (std::optional<ProductBody> product = matchProductBody(op))
    for (Value in : op.getInputs()) {
      Type elem = cast<MemRefType>(in.getType()).getElementType();
      if (!layout.takesInputType(elem))
        return err() << layout << " takes " << layout.inputTypesText()
                     << " inputs, not " << elem;
    }
  return FragmentLayoutAttrInterface(layout);
}

/// The k-steps of a unit [kBegin, kEnd): full ones run with a constant bound
/// in [kBegin, fullEnd). A ragged last step either runs as a full one, when
/// the copies' zero fill makes the body yield the combiner's identity, or
/// is peeled (`peeled`): fullEnd stops before it and `emitPeeledStep` runs
/// it with its own constant bound `rest`.
struct KSteps {
  int64_t tileK = 1, rest = 0;
  bool peeled = false;
  Value fullEnd;
};

KSteps planKSteps(RewriterBase &rw, Location loc, ComputeOp op,
                  const TilingPlan &plan, Value kEnd) {
  KSteps steps;
  unsigned k = *plan.kAxis;
  steps.tileK = plan.tile[k];
  steps.rest = plan.extents[k] % steps.tileK;
  steps.peeled = steps.rest != 0 && !zeroFillIsIdentity(op, plan);
  steps.fullEnd = kEnd;
  if (steps.peeled)
    steps.fullEnd = arith::MinSIOp::create(
        rw, loc, kEnd, constIndex(rw, loc, plan.iters - 1));
  return steps;
}

/// Emits `body(last step)` under `kEnd > iters - 1`. kEnd is the same in
/// every thread of the CTA: the branch does not diverge.
void emitPeeledStep(RewriterBase &rw, Location loc, const TilingPlan &plan,
                    Value kEnd, function_ref<void(Value)> body) {
  Value last = constIndex(rw, loc, plan.iters - 1);
  Value ragged =
      arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, kEnd, last);
  auto ifOp = scf::IfOp::create(rw, loc, ragged, /*withElse=*/false);
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(last);
}

/// The k-loop of a schedule with `stages = N >= 2` over the unit's
/// [kBegin, kEnd): step k computes on buffer k mod N of every cached input.
///
///   prologue: for s < N-1: copy step kBegin+s (if < kEnd); commit
///   for k in [kBegin, fullEnd):
///     wait (all but the newest N-2 groups) + barrier
///     copy step k+N-1 into buffer (k+N-1) mod N = (k-1) mod N (if < kEnd)
///     compute step k; commit
///   [peeled ragged step: wait + barrier; compute with the ragged bound]
///   wait for everything + barrier (the buffers may be reused after)
///
/// Every prologue step and iteration commits a group, copies or not, so the
/// group of step k is always the (k - kBegin)-th and `pending = N-2` covers
/// it. The copy into (k-1) mod N comes after the barrier that follows every
/// thread's compute of step k-1, so one barrier per step suffices.
void emitPipelinedKLoop(
    RewriterBase &rw, Location loc, ComputeOp op, const TilingPlan &plan,
    ScheduleAttr schedule, const ApplyScheduleOptions &options,
    const TileFrame &frame, Value kBegin, Value kEnd,
    ArrayRef<SmallVector<Value>> stageBufs,
    function_ref<void(ArrayRef<Value>, ArrayRef<Value>, ValueRange)> compute) {
  unsigned k = *plan.kAxis;
  int64_t stages = schedule.getStages();
  int64_t tileK = plan.tile[k];
  CopyStaging staging = options.asyncCopies && schedule.getAsync()
                            ? CopyStaging::async
                            : CopyStaging::registers;
  int64_t pending = stages - 2 + (options.weakenAsyncWait ? 1 : 0);
  auto stagingAttr = CopyStagingAttr::get(rw.getContext(), staging);
  unsigned numInputs = op.getInputs().size();

  auto offsetsAt = [&](Value step) {
    SmallVector<Value> offsets(frame.offsets);
    offsets[k] =
        arith::MulIOp::create(rw, loc, step, constIndex(rw, loc, tileK));
    return offsets;
  };
  auto stageOf = [&](Value step) {
    return arith::RemUIOp::create(rw, loc, step, constIndex(rw, loc, stages))
        .getResult();
  };
  // Buffer `stage` of input i (a select chain over the N allocations).
  auto bufferAt = [&](unsigned i, Value stage) {
    Value buf = stageBufs[i].back();
    for (int64_t s = stages - 2; s >= 0; --s) {
      Value is = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, stage,
                                       constIndex(rw, loc, s));
      buf = arith::SelectOp::create(rw, loc, is, stageBufs[i][s], buf);
    }
    return buf;
  };
  auto issueCopies = [&](Value step) {
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, step, kEnd);
    SmallVector<Value> offsets = offsetsAt(step);
    Value stage = stageOf(step);
    for (unsigned i = 0; i < numInputs; ++i) {
      if (!plan.cached.test(i))
        continue;
      SmallVector<Value> origins;
      for (const WindowDim &d : plan.windows[i].dims)
        origins.push_back(windowOrigin(rw, loc, d, offsets));
      CopyOp::create(rw,
                     phaseLoc(loc, "staged copy of input " + Twine(i) +
                                       " into shared memory"),
                     op.getInputs()[i], origins, bufferAt(i, stage), active,
                     schedule.getVector(), stagingAttr);
    }
  };
  auto computeStep = [&](Value step, Value bound) {
    SmallVector<Value> offsets = offsetsAt(step);
    SmallVector<Value> bounds(frame.bounds);
    bounds[k] = bound;
    Value stage = stageOf(step);
    SmallVector<Value> ins;
    for (unsigned i = 0; i < numInputs; ++i) {
      if (plan.cached.test(i)) {
        ins.push_back(bufferAt(i, stage));
        continue;
      }
      SmallVector<Value> origins;
      for (const WindowDim &d : plan.windows[i].dims)
        origins.push_back(windowOrigin(rw, loc, d, offsets));
      ins.push_back(
          tileView(rw, loc, op.getInputs()[i], origins, plan.windows[i].shape));
    }
    compute(offsets, bounds, ins);
  };
  Location waitLoc = phaseLoc(loc, "wait for the k-step's stage");

  // Prologue: the first N-1 steps' copies, one group each.
  for (int64_t s = 0; s < stages - 1; ++s) {
    Value step =
        s == 0 ? kBegin
               : arith::AddIOp::create(rw, loc, kBegin, constIndex(rw, loc, s))
                     .getResult();
    issueCopies(step);
    CopyCommitOp::create(rw, loc);
  }

  KSteps steps = planKSteps(rw, loc, op, plan, kEnd);
  auto loop = scf::ForOp::create(rw, loc, kBegin, steps.fullEnd,
                                 constIndex(rw, loc, 1));
  {
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    Value step = loop.getInductionVar();
    CopyWaitOp::create(rw, waitLoc, pending);
    issueCopies(
        arith::AddIOp::create(rw, loc, step, constIndex(rw, loc, stages - 1)));
    computeStep(step, constIndex(rw, loc, tileK));
    CopyCommitOp::create(rw, loc);
  }
  // The peeled ragged step's copy was issued by the prologue or the loop.
  if (steps.peeled)
    emitPeeledStep(rw, loc, plan, kEnd, [&](Value last) {
      CopyWaitOp::create(rw, waitLoc, pending);
      computeStep(last, constIndex(rw, loc, steps.rest));
    });
  // Copies past kEnd were never issued, but the last ones issued may still
  // be in flight in a unit shorter than the pipeline: drain before the
  // buffers are rewritten (next unit) or reused (shared-memory reuse).
  CopyWaitOp::create(rw, phaseLoc(loc, "drain of the copy pipeline"), 0);
}

} // namespace

FailureOr<KernelOp> ext::applySchedule(RewriterBase &rw, ComputeOp op,
                                       const ApplyScheduleOptions &options) {
  ScheduleAttr schedule = op.getScheduleAttr();
  if (!schedule)
    return op.emitOpError("has no schedule to apply");
  FailureOr<TilingPlan> planOr = planTiling(op, schedule);
  if (failed(planOr))
    return failure();
  TilingPlan &plan = *planOr;
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned numAxes = plan.axes.size();
  unsigned numInputs = op.getInputs().size();
  unsigned numOutputs = op.getOutputs().size();
  SmallVector<unsigned> allAxes = llvm::to_vector(llvm::seq<unsigned>(0, numAxes));
  SmallVector<int64_t> spatialTile, spatialThreads;
  for (unsigned a : plan.spatialAxes) {
    spatialTile.push_back(plan.tile[a]);
    spatialThreads.push_back(plan.threads[a]);
  }

  // Absent means cyclic: IR of schedules without a layout stays as it was.
  FailureOr<FragmentLayoutAttrInterface> layoutOr =
      resolveLayout(op, schedule, plan, options);
  if (failed(layoutOr))
    return failure();
  FragmentLayoutAttrInterface layout = *layoutOr;

  SmallVector<Type> fragTypes;
  if (plan.useFragments)
    for (Value out : op.getOutputs())
      fragTypes.push_back(MemRefType::get(
          spatialTile, cast<MemRefType>(out.getType()).getElementType()));

  int64_t numTiles = 1;
  for (int64_t t : plan.tileCounts)
    numTiles = llvm::checkedMul(numTiles, t).value_or(INT64_MAX);
  FailureOr<TileDecompositionAttrInterface> decomposition =
      resolveDecomposition(op, schedule.getDecompositionOrDefault(), numTiles,
                           plan.iters,
                           plan.kAxis ? plan.tile[*plan.kAxis] : 1, options);
  if (failed(decomposition))
    return failure();
  // A split tile's partial accumulators combine with the compute's combiner.
  bool hasCombiner = plan.useFragments && op.getCombiner();
  rw.setInsertionPoint(op);
  auto kernel = KernelOp::create(
      rw, loc, rw.getDenseI64ArrayAttr(plan.tileCounts), plan.iters,
      schedule.getNumThreads(), *decomposition, schedule.getRaster(),
      schedule.getSwizzle(),
      hasCombiner ? op.getCombinerAttr() : CombinerKindAttr(),
      hasCombiner ? op.getIdentityAttr() : ArrayAttr());
  if (hasCombiner && !op.getReducer().empty()) {
    IRMapping mapping;
    op.getReducer().cloneInto(&kernel.getReducer(), mapping);
  }

  unsigned numTileDims = plan.tileCounts.size();
  SmallVector<Type> bodyArgTypes(numTileDims + 2, rw.getIndexType());
  SmallVector<Location> bodyArgLocs(bodyArgTypes.size(), loc);
  Block *body = rw.createBlock(&kernel.getBody(), {}, bodyArgTypes, bodyArgLocs);
  SmallVector<Type> epiArgTypes(numTileDims, rw.getIndexType());
  llvm::append_range(epiArgTypes, fragTypes);
  SmallVector<Location> epiArgLocs(epiArgTypes.size(), loc);
  Block *epilogue =
      rw.createBlock(&kernel.getEpilogue(), {}, epiArgTypes, epiArgLocs);

  // Maps of a tile compute: inputs through their windows, outputs either
  // fragments (the spatial axes, in axis order) or the output tiles.
  SmallVector<AffineExpr> spatialDims;
  for (unsigned a : plan.spatialAxes)
    spatialDims.push_back(getAffineDimExpr(a, ctx));
  AffineMap fragMap = AffineMap::get(numAxes, 0, spatialDims, ctx);

  // --- body ---------------------------------------------------------------
  rw.setInsertionPointToStart(body);
  ValueRange coords = body->getArguments().take_front(numTileDims);
  Value kBegin = body->getArgument(numTileDims);
  Value kEnd = body->getArgument(numTileDims + 1);
  TileFrame frame = buildFrame(rw, loc, plan, coords);

  // A pipelined k-loop keeps `stages` buffers per cached input (the
  // verifier allows stages > 1 only with a k-loop and a cache).
  int64_t stages = plan.useFragments && plan.kAxis ? schedule.getStages() : 1;
  SmallVector<Value> sharedBufs(numInputs);
  SmallVector<SmallVector<Value>> stageBufs(numInputs);
  for (unsigned i = 0; i < numInputs; ++i) {
    if (!plan.cached.test(i))
      continue;
    Type elem = cast<MemRefType>(op.getInputs()[i].getType()).getElementType();
    ArrayRef<StorageAlignAttr> aligns = plan.cacheAttrs[i].getAlign();
    auto type = sharedTileType(plan.windows[i].shape, elem, aligns);
    assert(type && "planTiling checked the shared tile's size");
    ArrayAttr alignAttr =
        aligns.empty() ? ArrayAttr()
                       : rw.getArrayAttr(SmallVector<Attribute>(aligns.begin(),
                                                                aligns.end()));
    for (int64_t s = 0; s < stages; ++s)
      stageBufs[i].push_back(AllocSharedOp::create(
          rw,
          phaseLoc(loc, "shared tile of input " + Twine(i) +
                            (stages > 1 ? ", stage " + Twine(s) : Twine())),
          type, alignAttr, plan.cacheAttrs[i].getSwizzle()));
    sharedBufs[i] = stageBufs[i].front();
  }

  // Stages the cached inputs and returns every input's tile operand.
  auto stageInputs = [&](ArrayRef<Value> offsets) {
    SmallVector<Value> operands;
    for (unsigned i = 0; i < numInputs; ++i) {
      SmallVector<Value> origins;
      for (const WindowDim &d : plan.windows[i].dims)
        origins.push_back(windowOrigin(rw, loc, d, offsets));
      Value input = op.getInputs()[i];
      if (plan.cached.test(i)) {
        CopyOp::create(
            rw,
            phaseLoc(loc, "copy of input " + Twine(i) + " into shared memory"),
            input, origins, sharedBufs[i], /*active=*/Value(),
            schedule.getVector(), CopyStagingAttr());
        operands.push_back(sharedBufs[i]);
      } else {
        operands.push_back(
            tileView(rw, loc, input, origins, plan.windows[i].shape));
      }
    }
    return operands;
  };

  SmallVector<AffineMap> inputMaps;
  for (unsigned i = 0; i < numInputs; ++i)
    inputMaps.push_back(plan.windows[i].localMap);

  auto createTileCompute = [&](ArrayRef<Value> offsets, ArrayRef<Value> bounds,
                               ValueRange ins, ValueRange outs,
                               ArrayRef<AffineMap> outMaps, bool accumulate) {
    SmallVector<AffineMap> maps(inputMaps);
    llvm::append_range(maps, outMaps);
    auto tc = TileComputeOp::create(
        rw, phaseLoc(loc, "tile compute"), axesAttr(ctx, plan, allAxes),
        rw.getDenseI64ArrayAttr(plan.threads), bounds, ins, outs,
        rw.getAffineMapArrayAttr(maps), op.getCombinerAttr(),
        op.getIdentityAttr(), accumulate ? rw.getUnitAttr() : UnitAttr(),
        layout,
        schedule.getVector() == 1 ? IntegerAttr()
                                  : rw.getI64IntegerAttr(schedule.getVector()));
    cloneBodyWithOffsets(op, tc.getBody(), offsets);
    if (!op.getReducer().empty()) {
      IRMapping mapping;
      op.getReducer().cloneInto(&tc.getReducer(), mapping);
    }
    return tc;
  };

  if (plan.useFragments) {
    SmallVector<Value> frags;
    for (Type t : fragTypes)
      frags.push_back(AllocFragmentOp::create(
          rw, loc, t, rw.getDenseI64ArrayAttr(spatialThreads), layout));

    // Fill the fragments with the combiner's identity.
    {
      SmallVector<AffineMap> idMaps(
          numOutputs, AffineMap::getMultiDimIdentityMap(spatialTile.size(), ctx));
      auto fill = TileComputeOp::create(
          rw, phaseLoc(loc, "accumulator fill"),
          axesAttr(ctx, plan, plan.spatialAxes),
          rw.getDenseI64ArrayAttr(spatialThreads), ValueRange{}, ValueRange{},
          frags, rw.getAffineMapArrayAttr(idMaps), CombinerKindAttr(),
          ArrayAttr(), UnitAttr(), layout);
      OpBuilder::InsertionGuard g(rw);
      rw.createBlock(&fill.getBody());
      SmallVector<Value> ids;
      for (unsigned o = 0; o < numOutputs; ++o) {
        Type elem = cast<MemRefType>(fragTypes[o]).getElementType();
        TypedAttr id = op.hasCustomReducer()
                           ? cast<TypedAttr>((*op.getIdentity())[o])
                           : getCombinerIdentity(*op.getCombiner(), elem);
        ids.push_back(arith::ConstantOp::create(rw, loc, elem, id));
      }
      YieldOp::create(rw, loc, ids);
    }

    SmallVector<AffineMap> outMaps(numOutputs, fragMap);
    auto emitIteration = [&](Value kOffset, Value kBound) {
      SmallVector<Value> offsets(frame.offsets), bounds(frame.bounds);
      if (plan.kAxis) {
        offsets[*plan.kAxis] = kOffset;
        bounds[*plan.kAxis] = kBound;
      }
      SmallVector<Value> ins = stageInputs(offsets);
      createTileCompute(offsets, bounds, ins, frags, outMaps,
                        /*accumulate=*/true);
    };
    if (plan.kAxis && stages > 1) {
      emitPipelinedKLoop(
          rw, loc, op, plan, schedule, options, frame, kBegin, kEnd, stageBufs,
          [&](ArrayRef<Value> offsets, ArrayRef<Value> bounds, ValueRange ins) {
            createTileCompute(offsets, bounds, ins, frags, outMaps,
                              /*accumulate=*/true);
          });
    } else if (plan.kAxis) {
      // Full k-steps run with a constant bound (no checks in the steady
      // state). A ragged last step either runs as a full one, when the
      // copies' zero fill makes the body yield the combiner's identity, or
      // is peeled with its own constant bound.
      KSteps steps = planKSteps(rw, loc, op, plan, kEnd);
      int64_t tileK = steps.tileK;
      auto loop = scf::ForOp::create(rw, loc, kBegin, steps.fullEnd,
                                     constIndex(rw, loc, 1));
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPoint(loop.getBody()->getTerminator());
        Value kOffset = arith::MulIOp::create(rw, loc, loop.getInductionVar(),
                                              constIndex(rw, loc, tileK));
        emitIteration(kOffset, constIndex(rw, loc, tileK));
      }
      if (steps.peeled)
        emitPeeledStep(rw, loc, plan, kEnd, [&](Value) {
          emitIteration(constIndex(rw, loc, (plan.iters - 1) * tileK),
                        constIndex(rw, loc, steps.rest));
        });
    } else {
      emitIteration(Value(), Value());
    }
    KernelYieldOp::create(rw, loc, frags);

    // --- epilogue: fragments into the output tiles ------------------------
    rw.setInsertionPointToStart(epilogue);
    TileFrame eframe =
        buildFrame(rw, loc, plan, epilogue->getArguments().take_front(numTileDims));
    SmallVector<Value> spatialBounds;
    for (unsigned a : plan.spatialAxes)
      spatialBounds.push_back(eframe.bounds[a]);
    // Output maps over the spatial axes alone (d_j = j-th spatial axis).
    SmallVector<unsigned> spatialPos(numAxes, 0);
    for (auto [j, a] : llvm::enumerate(plan.spatialAxes))
      spatialPos[a] = j;
    for (unsigned o = 0; o < numOutputs; ++o) {
      AffineMap outMap = op.getOutputMap(o);
      SmallVector<Value> origins;
      SmallVector<int64_t> sizes;
      SmallVector<AffineExpr> exprs;
      for (AffineExpr e : outMap.getResults()) {
        unsigned a = cast<AffineDimExpr>(e).getPosition();
        origins.push_back(eframe.offsets[a]);
        sizes.push_back(plan.tile[a]);
        exprs.push_back(getAffineDimExpr(spatialPos[a], ctx));
      }
      SmallVector<AffineMap> maps = {
          AffineMap::getMultiDimIdentityMap(spatialTile.size(), ctx),
          AffineMap::get(spatialTile.size(), 0, exprs, ctx)};
      Value frag = epilogue->getArgument(numTileDims + o);
      Type elem = cast<MemRefType>(fragTypes[o]).getElementType();
      CacheAttr staging = plan.outputCache[o];
      // Fragments go by their layout into the output tile, or into a shared
      // staging tile that is then stored in coalesced rows.
      Value target, staged;
      if (staging) {
        staged = createStagingTile(rw, loc, o, sizes, elem, staging);
        target = staged;
      } else {
        target = tileView(rw, loc, op.getOutputs()[o], origins, sizes);
      }
      auto store = TileComputeOp::create(
          rw,
          phaseLoc(loc, (staging ? "epilogue staging of output "
                                 : "epilogue store of output ") +
                            Twine(o)),
          axesAttr(ctx, plan, plan.spatialAxes),
          rw.getDenseI64ArrayAttr(spatialThreads),
          staging ? ValueRange{} : ValueRange(spatialBounds), ValueRange{frag},
          ValueRange{target}, rw.getAffineMapArrayAttr(maps),
          CombinerKindAttr(), ArrayAttr(), UnitAttr(), layout);
      {
        OpBuilder::InsertionGuard g(rw);
        Block *b = rw.createBlock(&store.getBody(), {}, {elem}, {loc});
        YieldOp::create(rw, loc, b->getArgument(0));
      }
      if (staging)
        // A swizzled tile is rewritten access by access: scalar reads.
        StoreTileOp::create(
            rw, phaseLoc(loc, "epilogue store of output " + Twine(o)), staged,
            op.getOutputs()[o], origins,
            staging.getSwizzle() ? 1 : schedule.getVector());
    }
    KernelYieldOp::create(rw, loc, ValueRange{});
  } else {
    // No accumulator: one tile compute from the inputs into the outputs.
    SmallVector<Value> ins = stageInputs(frame.offsets);
    SmallVector<Value> outs;
    for (unsigned o = 0; o < numOutputs; ++o) {
      SmallVector<Value> origins;
      SmallVector<int64_t> sizes;
      for (AffineExpr e : op.getOutputMap(o).getResults()) {
        unsigned a = cast<AffineDimExpr>(e).getPosition();
        origins.push_back(frame.offsets[a]);
        sizes.push_back(plan.tile[a]);
      }
      outs.push_back(tileView(rw, loc, op.getOutputs()[o], origins, sizes));
    }
    SmallVector<AffineMap> outMaps;
    for (unsigned o = 0; o < numOutputs; ++o)
      outMaps.push_back(op.getOutputMap(o));
    createTileCompute(frame.offsets, frame.bounds, ins, outs, outMaps,
                      /*accumulate=*/false);
    KernelYieldOp::create(rw, loc, ValueRange{});
    rw.setInsertionPointToStart(epilogue);
    KernelYieldOp::create(rw, loc, ValueRange{});
  }

  rw.eraseOp(op);
  return kernel;
}

namespace {

struct ExtApplySchedulePass
    : ext::impl::ExtApplyScheduleBase<ExtApplySchedulePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<ComputeOp> scheduled;
    getOperation()->walk([&](ComputeOp op) {
      if (op.getScheduleAttr())
        scheduled.push_back(op);
    });
    // A chip ext has no facts for leaves the SM count unknown: only the
    // decompositions that need it fail, saying so.
    ApplyScheduleOptions options;
    options.report = report;
    options.chip = chip;
    options.weakenAsyncWait = weakenAsyncWait;
    // cp.async (nvgpu.device_async_copy) exists from sm_80 on.
    StringRef chipName = chip;
    unsigned sm = 0;
    if (chipName.consume_front("sm_") &&
        !chipName.rtrim("af").getAsInteger(10, sm))
      options.asyncCopies = sm >= 80;
    DeviceFacts &device = options.device;
    device = DeviceFacts::forChip(chip);
    if (sms < 0) {
      getOperation()->emitError() << "ext-apply-schedule: sms must be "
                                     "positive, got " << sms;
      return signalPassFailure();
    }
    if (sms > 0)
      device.numSMs = sms;
    IRRewriter rewriter(&getContext());
    for (ComputeOp op : scheduled)
      if (failed(applySchedule(rewriter, op, options)))
        return signalPassFailure();
  }
};

} // namespace
