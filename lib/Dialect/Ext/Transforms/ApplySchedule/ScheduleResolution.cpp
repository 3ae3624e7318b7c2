//===- ScheduleResolution.cpp - a schedule's choices made for the chip ----===//
//
// What a schedule may leave to ext-apply-schedule: the tile decomposition
// (`auto` picks the candidate its cost model predicts best, Stream-K takes
// the chip's SM count, and `report` explains the choice) and, for an `mma`
// schedule, the matrix instruction (`mma = auto` picks one for the chip and
// the inputs' type), checked against the tile and the inputs.
//
//===----------------------------------------------------------------------===//

#include "ScheduleResolution.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Dialect/Ext/IR/DecompositionPlan.h"
#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"
#include "ext/Support/ReportSvg.h"
#include "ext/Model/TileWork.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

/// The SM count `auto` weighs its candidates on: its own, else the chip's.
static FailureOr<int64_t> smsOfAuto(ComputeOp op, AutoAttr a,
                                    const DeviceFacts &device) {
  int64_t sms = a.getSms() ? a.getSms() : device.numSMs;
  if (sms == 0)
    return op.emitOpError()
           << "decomposition " << a
           << " needs the SM count: give `sms = N` or the chip (the "
              "module's #ext.target, or ext-apply-schedule{chip=...})";
  return sms;
}

/// The Stream-K family and the persistent grid keep the SM count they
/// were planned for.
static TileDecompositionAttrInterface
withPlannedSms(TileDecompositionAttrInterface d, int64_t sms) {
  MLIRContext *ctx = d.getContext();
  if (auto a = dyn_cast<PersistentAttr>(d); a && !a.getSms() && !a.getGrid())
    return PersistentAttr::get(ctx, 0, sms);
  if (auto a = dyn_cast<StreamKAttr>(d); a && !a.getSms())
    return StreamKAttr::get(ctx, a.getGrid(), sms);
  if (auto a = dyn_cast<StreamKDPAttr>(d); a && !a.getSms())
    return StreamKDPAttr::get(ctx, sms);
  if (auto a = dyn_cast<StreamK2TileAttr>(d); a && !a.getSms())
    return StreamK2TileAttr::get(ctx, sms);
  return d;
}

FailureOr<TileDecompositionAttrInterface>
tiling::resolveLaunchDecomposition(ComputeOp op,
                                   TileDecompositionAttrInterface d,
                                   int64_t tiles, int64_t iters, int64_t tileK,
                                   const ApplyScheduleOptions &options) {
  int64_t sms = options.device.numSMs;
  TileDecompositionAttrInterface resolved = d;
  if (auto a = dyn_cast<AutoAttr>(d)) {
    FailureOr<int64_t> autoSms = smsOfAuto(op, a, options.device);
    if (failed(autoSms))
      return failure();
    sms = *autoSms;
    resolved = AutoAttr::get(op.getContext(), sms);
  } else {
    resolved = withPlannedSms(d, sms);
    // What no tile count can change (split-K's slices against the
    // iterations) is refused here, at the compute; an iteration count
    // known only at launch is checked there.
    if (!ShapedType::isDynamic(iters) &&
        failed(resolved.verifyProblem([&]() { return op.emitOpError(); },
                                      /*numTiles=*/1, iters, options.device)))
      return failure();
  }
  if (options.report) {
    InFlightDiagnostic remark = op.emitRemark();
    remark << "decomposition " << resolved << " planned at launch for ";
    if (ShapedType::isDynamic(tiles))
      remark << "the tile count known then";
    else
      remark << tiles << " tiles";
    if (ShapedType::isDynamic(iters))
      remark << " and the iterations per tile known then";
    else
      remark << ", " << iters << " iterations per tile";
    if (sms)
      remark << ", on " << sms << " SMs";
    if (isa<AutoAttr>(resolved))
      remark << "; chosen at launch among data_parallel, stream_k, "
                "stream_k_dp and stream_k_2tile with a fixup costing "
             << llvm::formatv("{0:f4}",
                              tilework::CostModel::forTileK(tileK).partialCost)
                    .str()
             << " iterations";
  }
  return resolved;
}

/// `--ext-report-svg`: the resolved plan's picture, as
/// `<function>.<line>.decomposition.svg`.
static void drawDecomposition(ComputeOp op, Attribute decomposition,
                              int64_t tiles, int64_t iters,
                              const DeviceFacts &device) {
  if (getReportSvgDirectory().empty())
    return;
  std::optional<tilework::Plan> plan =
      planOfDecomposition(decomposition, tiles, iters, device);
  if (!plan) {
    op.emitRemark() << "--ext-report-svg draws no picture of " << decomposition
                    << ": it is no built-in decomposition";
    return;
  }
  auto func = op->getParentOfType<FunctionOpInterface>();
  std::string name = func ? func.getName().str() : "compute";
  int64_t line = 0;
  if (auto loc = dyn_cast<FileLineColLoc>(op.getLoc()))
    line = loc.getLine();
  std::string title;
  llvm::raw_string_ostream ts(title);
  ts << "@" << name << " line " << line << ": " << decomposition;
  std::string error;
  if (writeReportSvg(name + "." + std::to_string(line) + ".decomposition",
                     decompositionSvg(*plan, title), error)
          .empty())
    op.emitWarning() << "--ext-report-svg: " << error;
}

FailureOr<TileDecompositionAttrInterface>
tiling::resolveDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                             int64_t tiles, int64_t iters, int64_t tileK,
                             const ApplyScheduleOptions &options) {
  const DeviceFacts &device = options.device;
  MLIRContext *ctx = op.getContext();
  // One cost model: a fixup costs what the tile's reduce step says.
  double partialCost = tilework::CostModel::forTileK(tileK).partialCost;
  DeviceFacts facts = device;
  TileDecompositionAttrInterface resolved = d;
  std::string table;
  if (auto a = dyn_cast<AutoAttr>(d)) {
    FailureOr<int64_t> autoSms = smsOfAuto(op, a, device);
    if (failed(autoSms))
      return failure();
    facts.numSMs = *autoSms;
    SmallVector<AutoCandidate> candidates =
        collectAutoCandidates(ctx, tiles, iters, facts, partialCost);
    if (candidates.empty())
      return op.emitOpError()
             << "decomposition " << d << " found no candidate that can run "
             << tiles << " tiles of " << iters << " iterations on "
             << facts.numSMs << " SMs";
    unsigned best = pickAutoCandidate(candidates);
    resolved = candidates[best].decomposition;
    llvm::raw_string_ostream os(table);
    for (auto [i, c] : llvm::enumerate(candidates))
      os << "\n  " << (i == best ? "* " : "  ") << c.name << ": utilization "
         << llvm::format("%.3f", c.prediction.utilization) << ", grid "
         << c.prediction.grid << ", waves " << c.prediction.waves
         << ", max iterations per CTA " << c.prediction.maxItersPerCta
         << ", fixups " << c.prediction.fixups;
  }
  resolved = withPlannedSms(resolved, facts.numSMs);
  if (failed(resolved.verifyProblem([&]() { return op.emitOpError(); }, tiles,
                                    iters, device)))
    return failure();
  drawDecomposition(op, resolved, tiles, iters, device);
  if (options.report) {
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

/// Why `layout` cannot distribute a `tile` over `threads` (its verifier's
/// message, kept quiet), or empty when it can.
static std::string whyNotDistributed(ComputeOp op, MmaLayoutAttr layout,
                                     ArrayRef<int64_t> tile,
                                     ArrayRef<int64_t> threads) {
  std::string why;
  ScopedDiagnosticHandler quiet(op.getContext(), [&](Diagnostic &d) {
    if (why.empty())
      why = d.str();
    return success();
  });
  if (failed(layout.verifyDistribution([&]() { return op.emitOpError(); },
                                       tile, threads)) &&
      why.empty())
    why = "the layout does not distribute the tile";
  return why;
}

SwizzleAttr tiling::wgmmaOperandSwizzle(MLIRContext *ctx, int64_t columns,
                                        Type elem) {
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() != 16)
    return {};
  int64_t row = columns * 2;
  int64_t width = std::min<int64_t>(row, 128);
  if ((row > 128 && row % 128 != 0) ||
      (width != 32 && width != 64 && width != 128))
    return {};
  return SwizzleAttr::get(ctx, llvm::Log2_64(width / 16), 3, 3,
                          row > 128 ? 64 : 0);
}

/// Why sm_90a's warpgroup MMA cannot run `schedule` (empty when it can):
/// its own distribution rule (warps = [M / 16, 1], N up to 256), and both
/// inputs cached in a layout its descriptors read (a 32-, 64- or 128-byte
/// swizzle with rows of that width).
static std::string whyNotWgmma(ComputeOp op, ScheduleAttr schedule,
                               const TilingPlan &plan, const ChipInfo &chip,
                               Type elem) {
  MLIRContext *ctx = op.getContext();
  auto layout =
      MmaLayoutAttr::get(ctx, MmaShape::wgmma_k16, schedule.getWarps());
  if (!layout.existsOn(chip))
    return "the chip has no wgmma";
  if (!elem.isF16() && !elem.isBF16())
    return "wgmma_k16 takes f16 and bf16 inputs";
  SmallVector<int64_t> tile, threads;
  for (unsigned a : plan.spatialAxes) {
    tile.push_back(plan.tile[a]);
    threads.push_back(plan.threads[a]);
  }
  if (std::string why = whyNotDistributed(op, layout, tile, threads);
      !why.empty())
    return why;
  int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
  for (unsigned operand : {0u, 1u}) {
    CacheAttr cache;
    for (CacheAttr c : schedule.getCache())
      if (c.getOperand() == operand)
        cache = c;
    SwizzleAttr swizzle = cache ? cache.getSwizzle() : SwizzleAttr();
    AffineMap map = op.getMaps()[operand];
    std::optional<unsigned> inner;
    if (map.getNumResults())
      if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
        inner = dim.getPosition();
    if (!swizzle || !inner)
      return ("input #" + Twine(operand) +
              " is not cached with a swizzle (wgmma reads its operands "
              "from swizzled shared tiles)")
          .str();
    int64_t columns = plan.tile[*inner];
    if (swizzle.getPanel())
      columns = std::min(columns, swizzle.getPanel());
    if (swizzle.getBase() != 3 || swizzle.getShift() != 3 ||
        swizzle.getBits() < 1 || swizzle.getBits() > 3 ||
        columns * bytes != (int64_t(16) << swizzle.getBits()))
      return ("input #" + Twine(operand) +
              "'s swizzle is not one of wgmma's layouts (rows of W = 32, 64 "
              "or 128 bytes, #ext.swizzle<bits = log2(W / 16), base = 3, "
              "shift = 3>)")
          .str();
  }
  return "";
}

ScheduleAttr tiling::swizzleCachesForAutoWgmma(ComputeOp op,
                                               ScheduleAttr schedule,
                                               const TilingPlan &plan,
                                               const ApplyScheduleOptions &options) {
  MmaLayoutAttr mma = schedule.getMma();
  const std::optional<ChipInfo> &chip = options.device.chip;
  if (!mma || mma.getShape() != MmaShape::automatic || !chip ||
      !schedule.getOnline().empty() || !matchProductBody(op) ||
      op.getInputs().size() < 2)
    return schedule;
  MLIRContext *ctx = op.getContext();
  Type elem = cast<MemRefType>(op.getInputs()[0].getType()).getElementType();
  auto wgmma = MmaLayoutAttr::get(ctx, MmaShape::wgmma_k16, schedule.getWarps());
  SmallVector<int64_t> tile, threads;
  for (unsigned a : plan.spatialAxes) {
    tile.push_back(plan.tile[a]);
    threads.push_back(plan.threads[a]);
  }
  if (!wgmma.existsOn(*chip) || (!elem.isF16() && !elem.isBF16()) ||
      !whyNotDistributed(op, wgmma, tile, threads).empty())
    return schedule;
  // Only caches without a layout of the schedule's own get one: a padded
  // or swizzled tile the user chose stays, and the remark says why not.
  SmallVector<CacheAttr> caches(schedule.getCache());
  bool changed = false;
  for (CacheAttr &c : caches) {
    if (c.getOperand() > 1 || !c.getAlign().empty() || c.getSwizzle())
      continue;
    AffineMap map = op.getMaps()[c.getOperand()];
    if (!map.getNumResults())
      continue;
    auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!inner)
      continue;
    SwizzleAttr swizzle =
        wgmmaOperandSwizzle(ctx, plan.tile[inner.getPosition()], elem);
    if (!swizzle)
      continue;
    c = CacheAttr::get(ctx, c.getOperand(), {}, swizzle);
    changed = true;
  }
  if (!changed)
    return schedule;
  auto swizzled = ScheduleAttr::get(
      ctx, schedule.getTile(), schedule.getBlocks(), schedule.getThreads(),
      caches, schedule.getDecomposition(), schedule.getRaster(),
      schedule.getSwizzle(), schedule.getVector(), schedule.getUnroll(),
      schedule.getLayout(), schedule.getMma(), schedule.getWarps(),
      schedule.getStages(), schedule.getAsync(), schedule.getComputeAt(),
      schedule.getReverseComputeAt(), schedule.getComputeInline(),
      schedule.getOnline(), schedule.getTma(), schedule.getSpecialize(),
      schedule.getCluster(), schedule.getFastMath());
  op.setScheduleAttr(swizzled);
  return swizzled;
}

FailureOr<FragmentLayoutAttrInterface>
tiling::resolveLayout(ComputeOp op, ScheduleAttr schedule,
                      const TilingPlan &plan,
                      const ApplyScheduleOptions &options) {
  MmaLayoutAttr mma = schedule.getMma();
  if (!mma)
    return schedule.getLayout();
  const std::optional<ChipInfo> &chip = options.device.chip;
  MmaShape shape = mma.getShape();
  // An online-softmax accumulator (OnlineSoftmax.cpp) is rows x values over
  // the spatial axes with a tile above 1; its GEMMs take the value input's
  // type (the first 16-bit float input) and run on mma.sync or MFMA.
  bool online = !schedule.getOnline().empty();
  SmallVector<unsigned> fragAxes;
  for (unsigned a : plan.spatialAxes)
    if (!online || plan.tile[a] > 1)
      fragAxes.push_back(a);
  if (shape == MmaShape::automatic) {
    if (!chip)
      return op.emitOpError() << "mma = auto needs the chip (the module's "
                                 "#ext.target, or ext-apply-schedule{chip=...})";
    // A product of factors computed from inputs (a dequantized weight)
    // takes the factors' type; its B is built in registers, which wgmma's
    // shared-memory operands do not take: mma.sync.
    std::optional<OperandProductBody> factors;
    if (!online && !matchProductBody(op) &&
        !(factors = matchOperandProductBody(op)))
      return op.emitOpError()
             << "mma = auto: the body is not a product under a sum combiner "
                "(C += A * B), which is what matrix instructions compute";
    Type elem = factors ? factors->lhs.value.getType()
                        : cast<MemRefType>(op.getInputs()[0].getType())
                              .getElementType();
    if (online)
      for (Value in : op.getInputs())
        if (Type t = cast<MemRefType>(in.getType()).getElementType();
            t.isF16() || t.isBF16())
          elem = t;
    bool nvidia = chip->isNvidia();
    auto divides = [&](int64_t m, int64_t n) {
      ArrayRef<int64_t> warps = schedule.getWarps();
      return fragAxes.size() == 2 &&
             plan.tile[fragAxes[0]] % (warps[0] * m) == 0 &&
             plan.tile[fragAxes[1]] % (warps[1] * n) == 0;
    };
    // sm_90a's warpgroup MMA where the schedule is one it runs (warps down
    // M, swizzled operands), else mma.sync.
    if (nvidia && online && (elem.isF16() || elem.isBF16())) {
      // An online-softmax kernel swizzles its own operand tiles: the
      // accumulator (rows x head) must be wgmma's distribution, the scores
      // (rows x keys) too, and both the head's and the keys' rows a layout
      // its descriptors read.
      auto wgmma = MmaLayoutAttr::get(op.getContext(), MmaShape::wgmma_k16,
                                      schedule.getWarps());
      SmallVector<int64_t> tile, threads;
      for (unsigned a : fragAxes) {
        tile.push_back(plan.tile[a]);
        threads.push_back(plan.threads[a]);
      }
      bool fits = wgmma.existsOn(*chip) && plan.kAxis &&
                  whyNotDistributed(op, wgmma, tile, threads).empty();
      if (fits) {
        int64_t keys = plan.tile[*plan.kAxis];
        fits = whyNotDistributed(op, wgmma, {tile[0], keys}, threads).empty() &&
               wgmmaOperandSwizzle(op.getContext(), tile[1], elem) &&
               wgmmaOperandSwizzle(op.getContext(), keys, elem);
      }
      shape = fits ? MmaShape::wgmma_k16 : MmaShape::m16n8k16;
    } else if (nvidia && (elem.isF16() || elem.isBF16())) {
      std::string why =
          factors ? "a factor computed from its inputs (a dequantized "
                    "operand) is built in registers, and wgmma reads B from "
                    "shared memory"
                  : whyNotWgmma(op, schedule, plan, *chip, elem);
      shape = why.empty() ? MmaShape::wgmma_k16 : MmaShape::m16n8k16;
      // On a chip with wgmma, falling back is worth a word.
      if (!why.empty() &&
          MmaLayoutAttr::get(op.getContext(), MmaShape::wgmma_k16, {})
              .existsOn(*chip)) {
        StringRef reason = why;
        reason.consume_front("'ext.compute' op ");
        reason.consume_front("mma layout: ");
        op.emitRemark() << "mma = auto uses mma.sync (m16n8k16) on "
                        << chip->name << ", not wgmma: " << reason;
      }
    }
    else if (nvidia && elem.isF32())
      return op.emitOpError()
             << "mma = auto does not round f32 inputs to tf32; name "
                "#ext.mma<m16n8k8> to accept tf32 products";
    else if (chip->hasMfma && elem.isF16())
      shape =
          divides(32, 32) ? MmaShape::mfma_32x32x8 : MmaShape::mfma_16x16x16;
    else if (chip->hasMfma && elem.isF32())
      shape = MmaShape::mfma_32x32x2;
    else
      return op.emitOpError() << "mma = auto: chip " << chip->name
                              << " has no matrix instruction ext knows for "
                              << elem << " inputs";
  }
  auto layout = MmaLayoutAttr::get(op.getContext(), shape, schedule.getWarps());
  if (chip && !layout.existsOn(*chip))
    return op.emitOpError()
           << "mma " << MmaLayoutAttr::get(op.getContext(), shape, {})
           << " does not exist on chip " << chip->name
           << "; mma = auto picks the chip's instruction (with warps and no "
              "threads in Python, the chip's lanes too)";
  SmallVector<int64_t> tile, threads;
  for (unsigned a : fragAxes) {
    tile.push_back(plan.tile[a]);
    threads.push_back(plan.threads[a]);
  }
  auto err = [&]() { return op.emitOpError() << "schedule: "; };
  if (failed(layout.verifyDistribution(err, tile, threads)))
    return failure();
  if (online)
    return FragmentLayoutAttrInterface(layout);
  for (unsigned a = 0; a < plan.axes.size(); ++a)
    if (plan.axes[a].isReduce() && plan.tile[a] % layout.getK() != 0)
      return err() << "tile size " << plan.tile[a] << " of reduce axis '"
                   << plan.axes[a].getName()
                   << "' is not a multiple of the instruction's K = "
                   << layout.getK();
  if (std::optional<SmallVector<Type>> types = getProductOperandTypes(op))
    for (Type elem : *types) {
      if (!layout.takesInputType(elem))
        return err() << layout << " takes " << layout.inputTypesText()
                     << " inputs, not " << elem;
    }
  return FragmentLayoutAttrInterface(layout);
}
