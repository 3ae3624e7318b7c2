//===- Decompositions.cpp - ext's built-in tile decompositions ------------===//
//
// Each attribute resolves to a tilework::Plan (ext/Model/TileWork.h, where
// the index math, its invariants and the deadlock argument live, tested in
// unittests/Support/TileWorkTest.cpp) and emits that math as index
// arithmetic around the TileWorkEmitter's pieces.
//
//===----------------------------------------------------------------------===//

#include "DecompositionSpec.h"

#include "ext/Dialect/Ext/IR/DecompositionPlan.h"
#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Runtime/LaunchPlannerABI.h"
#include "ext/Model/TileWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;
using namespace ext::decomposition;

std::optional<WorkPrediction> ext::predictWholeTiles(int64_t numTiles,
                                                     int64_t itersPerTile,
                                                     int64_t grid,
                                                     int64_t sms) {
  if (sms <= 0 || grid <= 0 || numTiles <= 0)
    return std::nullopt;
  int64_t tilesPerCta = llvm::divideCeil(numTiles, grid);
  WorkPrediction w;
  w.grid = grid;
  w.waves = llvm::divideCeil(grid, sms);
  w.maxUnitsPerCta = tilesPerCta;
  w.maxItersPerCta = tilesPerCta * itersPerTile;
  w.makespan = double(w.waves) * double(w.maxItersPerCta);
  w.utilization = double(numTiles) * double(itersPerTile) /
                  (double(sms) * w.makespan);
  return w;
}

LogicalResult
ext::verifyGridLimits(Attribute attr,
                      function_ref<InFlightDiagnostic()> emitError,
                      int64_t numBlocks, int64_t numReductionBlocks) {
  for (int64_t grid : {numBlocks, numReductionBlocks})
    if (grid > std::numeric_limits<int32_t>::max())
      return emitError() << "decomposition " << attr << " needs " << grid
                         << " CTAs, beyond the grid's x limit";
  return success();
}

namespace {

/// The plan for a problem; none when the SM count is missing (or the
/// problem does not verify).
std::optional<tw::Plan> planOf(const Spec &spec, int64_t tiles, int64_t iters,
                               const DeviceFacts &device) {
  return tw::makePlan(spec.kind, tiles, iters, withSms(device, spec.sms).numSMs,
                      spec.param, nullptr);
}

std::optional<WorkPrediction> predictSpec(const Spec &spec, int64_t tiles,
                                          int64_t iters,
                                          const DeviceFacts &device,
                                          double partialCost) {
  int64_t sms = withSms(device, spec.sms).numSMs;
  std::optional<tw::Plan> plan = planOf(spec, tiles, iters, device);
  if (sms == 0 || !plan)
    return std::nullopt;
  tw::CostModel cost;
  cost.partialCost = partialCost;
  std::optional<tw::Prediction> p = tw::predict(*plan, sms, cost);
  if (!p)
    return std::nullopt;
  WorkPrediction w;
  w.grid = p->grid;
  w.waves = p->waves;
  w.maxUnitsPerCta = p->maxUnitsPerCta;
  w.maxItersPerCta = p->maxItersPerCta;
  w.fixups = p->fixups;
  w.makespan = p->makespan;
  w.utilization = p->utilization;
  return w;
}

LogicalResult verifySpec(const Spec &spec, Attribute attr,
                         function_ref<InFlightDiagnostic()> emitError,
                         int64_t tiles, int64_t iters,
                         const DeviceFacts &device) {
  DeviceFacts facts = withSms(device, spec.sms);
  // The verifier runs without a chip: what needs the SM count waits for the
  // lowering, which knows it.
  if (spec.needsSms() && facts.numSMs == 0)
    return success();
  std::string why;
  std::optional<tw::Plan> plan =
      tw::makePlan(spec.kind, tiles, iters, facts.numSMs, spec.param, &why);
  if (!plan)
    return emitError() << "decomposition " << attr << " cannot " << why;
  return verifyGridLimits(attr, emitError, plan->grid, plan->reductionGrid());
}

PlanValues staticValues(Builder &b, const tw::Plan &p) {
  PlanValues v;
  v.kind = p.kind;
  v.tiles = b.getIndexAttr(p.tiles);
  v.iters = b.getIndexAttr(p.iters);
  v.grid = b.getIndexAttr(p.grid);
  v.skTiles = b.getIndexAttr(p.skTiles);
  v.skGrid = b.getIndexAttr(p.skGrid);
  v.slices = p.slices;
  return v;
}

/// The iterations of the Stream-K region, folded where both are known.
OpFoldResult skItersOf(OpBuilder &b, Location loc, const PlanValues &p) {
  std::optional<int64_t> t = getConstantIntValue(p.skTiles),
                         i = getConstantIntValue(p.iters);
  if (t && i)
    return b.getIndexAttr(*t * *i);
  return arith::MulIOp::create(b, loc, val(b, loc, p.skTiles),
                               val(b, loc, p.iters))
      .getResult();
}

/// A tile's whole reduce range, then its epilogue.
LogicalResult emitWhole(OpBuilder &b, Location loc, Value tile,
                        OpFoldResult iters, TileWorkEmitter &emitter) {
  FailureOr<SmallVector<Value>> frags =
      emitter.emitMainloop(b, loc, tile, cst(b, loc, 0), val(b, loc, iters));
  if (failed(frags))
    return failure();
  return emitter.emitEpilogue(b, loc, tile, *frags);
}

/// Contributor: partial to slot `slot`, then its flag.
LogicalResult emitContribute(OpBuilder &b, Location loc, Value slot,
                             ValueRange frags, bool signal,
                             TileWorkEmitter &emitter) {
  if (failed(emitter.emitStorePartial(b, loc, slot, frags)))
    return failure();
  if (signal)
    emitter.emitSignal(b, loc, slot);
  return success();
}

/// The end of a unit of a tile that may be split, as tw::combinedBy: the
/// participant of rank `rank` (its distance from the tile's owner, whose rank
/// is 0) among `n` contributors waits for and combines the partials of ranks
/// rank + d (slot cta - d * stride) for d = 1, 2, 4, ... while d is below
/// lowbit(rank) (for the owner: always) and rank + d <= n. Then the owner
/// writes the tile; a contributor stores the result in slot `cta` and sets
/// its flag.
LogicalResult emitTreeFixup(OpBuilder &b, Location loc, Value tile,
                            ValueRange frags, Value rank, Value n,
                            OpFoldResult stride, Value cta,
                            TileWorkEmitter &emitter) {
  using Pred = arith::CmpIPredicate;
  Type index = b.getIndexType();
  Value zero = cst(b, loc, 0), one = cst(b, loc, 1);
  Value owns = arith::CmpIOp::create(b, loc, Pred::eq, rank, zero);
  Value lowbit = arith::AndIOp::create(
      b, loc, rank, arith::SubIOp::create(b, loc, zero, rank));
  Value limit = arith::SelectOp::create(
      b, loc, owns, arith::AddIOp::create(b, loc, n, one), lowbit);
  LogicalResult result = success();
  scf::WhileOp::create(
      b, loc, TypeRange{index}, ValueRange{one},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value d = args[0];
        Value below = arith::CmpIOp::create(nb, l, Pred::ult, d, limit);
        Value exists = arith::CmpIOp::create(
            nb, l, Pred::ule, arith::AddIOp::create(nb, l, rank, d), n);
        scf::ConditionOp::create(
            nb, l, arith::AndIOp::create(nb, l, below, exists), args);
      },
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value d = args[0];
        Value offset = d;
        if (!isConstantIntValue(stride, 1))
          offset = arith::MulIOp::create(nb, l, d, val(nb, l, stride));
        Value slot = arith::SubIOp::create(nb, l, cta, offset);
        emitter.emitWait(nb, l, slot);
        if (failed(emitter.emitCombinePartial(nb, l, slot, frags)))
          result = failure();
        scf::YieldOp::create(nb, l,
                             ValueRange{arith::AddIOp::create(nb, l, d, d)});
      });
  if (failed(result))
    return failure();
  scf::IfOp::create(
      b, loc, owns,
      [&](OpBuilder &tb, Location tl) {
        if (failed(emitter.emitEpilogue(tb, tl, tile, frags)))
          result = failure();
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        if (failed(
                emitContribute(eb, el, cta, frags, /*signal=*/true, emitter)))
          result = failure();
        scf::YieldOp::create(eb, el);
      });
  return result;
}

/// The Stream-K region: CTA `cta` < skGrid runs [begin, end) of the region's
/// iterations, one unit per tile, from its last iteration backward
/// (tw::unitsOf).
LogicalResult emitStreamKRegion(OpBuilder &b, Location loc, Value cta,
                                const PlanValues &p,
                                TileWorkEmitter &emitter) {
  Type index = b.getIndexType();
  Value n = val(b, loc, skItersOf(b, loc, p)), g = val(b, loc, p.skGrid);
  Value iters = val(b, loc, p.iters), one = cst(b, loc, 1);
  Value begin =
      arith::DivUIOp::create(b, loc, arith::MulIOp::create(b, loc, cta, n), g);
  Value next = arith::AddIOp::create(b, loc, cta, one);
  Value end =
      arith::DivUIOp::create(b, loc, arith::MulIOp::create(b, loc, next, n), g);
  LogicalResult result = success();
  scf::WhileOp::create(
      b, loc, TypeRange{index}, ValueRange{end},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value more = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt,
                                           args[0], begin);
        scf::ConditionOp::create(nb, l, more, args);
      },
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value e = args[0];
        Value last = arith::SubIOp::create(nb, l, e, one);
        Value tile = arith::DivUIOp::create(nb, l, last, iters);
        Value tileBegin = arith::MulIOp::create(nb, l, tile, iters);
        Value s = arith::MaxUIOp::create(nb, l, begin, tileBegin);
        Value kBegin = arith::SubIOp::create(nb, l, s, tileBegin);
        Value kEnd = arith::SubIOp::create(nb, l, e, tileBegin);
        FailureOr<SmallVector<Value>> frags =
            emitter.emitMainloop(nb, l, tile, kBegin, kEnd);
        if (failed(frags)) {
          result = failure();
          scf::YieldOp::create(nb, l, ValueRange{s});
          return;
        }
        // The tile's participants are the CTAs from skCtaOf(tileBegin), the
        // first contributor, to skCtaOf(tileBegin + iters - 1), the owner
        // (skCtaOf(x) = ((x + 1) * skGrid - 1) / skIters); a whole tile has
        // no contributors.
        auto ctaOf = [&](Value next) {
          return arith::DivUIOp::create(
              nb, l,
              arith::SubIOp::create(nb, l,
                                    arith::MulIOp::create(nb, l, next, g), one),
              n);
        };
        Value first = ctaOf(arith::AddIOp::create(nb, l, tileBegin, one));
        Value owner = ctaOf(arith::AddIOp::create(nb, l, tileBegin, iters));
        Value rank = arith::SubIOp::create(nb, l, owner, cta);
        Value count = arith::SubIOp::create(nb, l, owner, first);
        if (failed(emitTreeFixup(nb, l, tile, *frags, rank, count,
                                 nb.getIndexAttr(1), cta,
                                 emitter)))
          result = failure();
        scf::YieldOp::create(nb, l, ValueRange{s});
      });
  return result;
}

LogicalResult emitPlan(OpBuilder &b, Location loc, Value cta,
                       const PlanValues &p, TileWorkEmitter &emitter) {
  switch (p.kind) {
  case tw::Kind::DataParallel:
    return emitWhole(b, loc, cta, p.iters, emitter);
  case tw::Kind::SplitKSerial:
  case tw::Kind::SplitKParallel: {
    Value tiles = val(b, loc, p.tiles);
    Value slice = arith::DivUIOp::create(b, loc, cta, tiles);
    Value tile = arith::RemUIOp::create(b, loc, cta, tiles);
    auto bound = [&](Value s) {
      return arith::DivUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, s, val(b, loc, p.iters)),
          cst(b, loc, p.slices));
    };
    Value kBegin = bound(slice);
    Value kEnd = bound(arith::AddIOp::create(b, loc, slice, cst(b, loc, 1)));
    FailureOr<SmallVector<Value>> frags =
        emitter.emitMainloop(b, loc, tile, kBegin, kEnd);
    if (failed(frags))
      return failure();
    if (p.kind == tw::Kind::SplitKParallel)
      return emitContribute(b, loc, cta, *frags, /*signal=*/false, emitter);
    if (p.slices == 1)
      return emitter.emitEpilogue(b, loc, tile, *frags);
    // The last slice (the highest CTA ids) owns the tile; slice s has rank
    // slices - 1 - s, and its slot is its CTA id.
    Value rank =
        arith::SubIOp::create(b, loc, cst(b, loc, p.slices - 1), slice);
    return emitTreeFixup(b, loc, tile, *frags, rank, cst(b, loc, p.slices - 1),
                         p.tiles, cta, emitter);
  }
  case tw::Kind::StreamK:
  case tw::Kind::StreamKDP:
  case tw::Kind::StreamK2Tile:
    break;
  }
  // Known at compile time: no region, or no CTA outside it.
  std::optional<int64_t> skTiles = getConstantIntValue(p.skTiles);
  if (skTiles == 0)
    return emitWhole(b, loc, cta, p.iters, emitter);
  if (isEqualConstantIntOrValue(p.grid, p.skGrid))
    return emitStreamKRegion(b, loc, cta, p, emitter);
  // Stream-K CTAs first (they are the ones that wait), then one CTA per
  // remaining tile.
  Value inSk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, cta,
                                     val(b, loc, p.skGrid));
  LogicalResult result = success();
  scf::IfOp::create(
      b, loc, inSk,
      [&](OpBuilder &tb, Location tl) {
        result = emitStreamKRegion(tb, tl, cta, p, emitter);
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        // cta - skGrid + skTiles; at launch in that order, which stays
        // non-negative (skGrid may exceed skTiles).
        Value tile;
        std::optional<int64_t> skGrid = getConstantIntValue(p.skGrid);
        if (skTiles && skGrid)
          tile = arith::AddIOp::create(eb, el, cta,
                                       cst(eb, el, *skTiles - *skGrid));
        else
          tile = arith::AddIOp::create(
              eb, el, arith::SubIOp::create(eb, el, cta, val(eb, el, p.skGrid)),
              val(eb, el, p.skTiles));
        if (failed(emitWhole(eb, el, tile, p.iters, emitter)))
          result = failure();
        scf::YieldOp::create(eb, el);
      });
  return result;
}

/// Parallel split-K's reduction launch: CTA t combines slices 0..S-1 of tile
/// t into fresh accumulators (an empty main loop leaves the identity).
LogicalResult emitReduction(OpBuilder &b, Location loc, Value tile,
                            const PlanValues &p, TileWorkEmitter &emitter) {
  Value zero = cst(b, loc, 0);
  FailureOr<SmallVector<Value>> frags =
      emitter.emitMainloop(b, loc, tile, zero, zero);
  if (failed(frags))
    return failure();
  // The main launch has ended: no flags to wait for. Slices in order.
  LogicalResult result = success();
  scf::ForOp::create(
      b, loc, zero, cst(b, loc, p.slices), cst(b, loc, 1), ValueRange{},
      [&](OpBuilder &nb, Location l, Value s, ValueRange) {
        Value slot = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, s, val(nb, l, p.tiles)), tile);
        if (failed(emitter.emitCombinePartial(nb, l, slot, *frags)))
          result = failure();
        scf::YieldOp::create(nb, l);
      });
  if (failed(result))
    return failure();
  return emitter.emitEpilogue(b, loc, tile, *frags);
}


} // namespace

//===----------------------------------------------------------------------===//
// DataParallelAttr: one CTA per tile, the whole reduce range.
//===----------------------------------------------------------------------===//

int64_t DataParallelAttr::getNumBlocks(int64_t numTiles, int64_t itersPerTile,
                                       const DeviceFacts &) const {
  return numTiles;
}

bool DataParallelAttr::splitsReduction() const { return false; }

std::optional<WorkPrediction>
DataParallelAttr::predictWork(int64_t numTiles, int64_t itersPerTile,
                              const DeviceFacts &device,
                              double partialCost) const {
  return predictSpec({tw::Kind::DataParallel}, numTiles, itersPerTile, device,
                     partialCost);
}

LogicalResult DataParallelAttr::emitWorkUnits(OpBuilder &b, Location loc,
                                              Value blockId, int64_t numTiles,
                                              int64_t itersPerTile,
                                              const DeviceFacts &,
                                              TileWorkEmitter &emitter) const {
  return emitWhole(b, loc, blockId, b.getIndexAttr(itersPerTile), emitter);
}

bool DataParallelAttr::plansAtLaunch() const { return true; }

FailureOr<LaunchPlan>
DataParallelAttr::emitLaunchPlan(OpBuilder &b, Location loc, Value numTiles,
                                 OpFoldResult iters, const DeviceFacts &device,
                                 double) const {
  return planAtLaunch(b, loc, {tw::Kind::DataParallel}, *this, numTiles,
                      iters, device);
}

LogicalResult DataParallelAttr::emitLaunchWorkUnits(
    OpBuilder &b, Location loc, Value blockId, const LaunchPlan &plan,
    TileWorkEmitter &emitter) const {
  return emitWhole(b, loc, blockId, plan.itersPerTile, emitter);
}

//===----------------------------------------------------------------------===//
// PersistentAttr: `grid` CTAs walking whole tiles a grid apart.
//===----------------------------------------------------------------------===//

static LogicalResult verifySms(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, int64_t sms) {
  if (sms < 0 || sms > std::numeric_limits<int32_t>::max())
    return emitError() << name << " sms must be a positive SM count (or 0 "
                       << "for the chip's), got " << sms;
  return success();
}

/// A `grid` parameter (0: the SM count) and the attribute's `sms`.
static LogicalResult verifyGridAndSms(
    function_ref<InFlightDiagnostic()> emitError, StringRef name, int64_t grid,
    int64_t sms) {
  if (grid < 0 || grid > std::numeric_limits<int32_t>::max())
    return emitError() << name
                       << " grid must be a CTA count in [1, 2147483647] (the "
                          "grid's x limit), or 0 for the SM count, got "
                       << grid;
  return verifySms(emitError, name, sms);
}

/// CTA `blockId` of `grid` runs tiles blockId, blockId + grid, ... below
/// `tiles`, each whole.
static LogicalResult emitTileWalk(OpBuilder &b, Location loc, Value blockId,
                                  Value tiles, Value grid, OpFoldResult iters,
                                  TileWorkEmitter &emitter) {
  LogicalResult result = success();
  scf::ForOp::create(b, loc, blockId, tiles, grid, ValueRange{},
                     [&](OpBuilder &nb, Location l, Value tile, ValueRange) {
                       result = emitWhole(nb, l, tile, iters, emitter);
                       scf::YieldOp::create(nb, l);
                     });
  return result;
}

LogicalResult
PersistentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t grid, int64_t sms) {
  return verifyGridAndSms(emitError, "persistent", grid, sms);
}

/// The CTAs before capping at the tile count: `grid`, else the SM count (0
/// when unknown).
static int64_t persistentCtas(PersistentAttr a, const DeviceFacts &device) {
  return a.getGrid() ? a.getGrid() : withSms(device, a.getSms()).numSMs;
}

int64_t PersistentAttr::getNumBlocks(int64_t numTiles, int64_t,
                                     const DeviceFacts &device) const {
  return std::min(numTiles, persistentCtas(*this, device));
}

bool PersistentAttr::splitsReduction() const { return false; }

LogicalResult PersistentAttr::verifyProblem(
    function_ref<InFlightDiagnostic()> emitError, int64_t numTiles,
    int64_t itersPerTile, const DeviceFacts &device) const {
  if (persistentCtas(*this, device) == 0)
    return emitError() << "decomposition " << *this
                       << " needs the SM count: give `grid = N`, `sms = N` "
                          "or the chip";
  return success();
}

std::optional<WorkPrediction>
PersistentAttr::predictWork(int64_t numTiles, int64_t itersPerTile,
                            const DeviceFacts &device, double) const {
  return predictWholeTiles(numTiles, itersPerTile,
                           getNumBlocks(numTiles, itersPerTile, device),
                           withSms(device, getSms()).numSMs);
}

LogicalResult PersistentAttr::emitWorkUnits(OpBuilder &b, Location loc,
                                            Value blockId, int64_t numTiles,
                                            int64_t itersPerTile,
                                            const DeviceFacts &device,
                                            TileWorkEmitter &emitter) const {
  return emitTileWalk(
      b, loc, blockId, cst(b, loc, numTiles),
      cst(b, loc, getNumBlocks(numTiles, itersPerTile, device)),
      b.getIndexAttr(itersPerTile), emitter);
}

SmallVector<Attribute>
PersistentAttr::getAutoCandidates(int64_t, int64_t, const DeviceFacts &) const {
  return {};
}

bool PersistentAttr::plansAtLaunch() const { return true; }

FailureOr<LaunchPlan>
PersistentAttr::emitLaunchPlan(OpBuilder &b, Location loc, Value numTiles,
                               OpFoldResult iters, const DeviceFacts &device,
                               double) const {
  int64_t ctas = persistentCtas(*this, device);
  if (ctas == 0)
    return emitError(loc) << "decomposition " << *this
                          << " needs the SM count: give `grid = N`, `sms = "
                             "N` or the chip";
  LaunchPlan plan;
  plan.itersPerTile = iters;
  plan.grid = arith::MinUIOp::create(b, loc, numTiles, cst(b, loc, ctas));
  plan.params = {numTiles, plan.grid};
  return plan;
}

LogicalResult PersistentAttr::emitLaunchWorkUnits(
    OpBuilder &b, Location loc, Value blockId, const LaunchPlan &plan,
    TileWorkEmitter &emitter) const {
  return emitTileWalk(b, loc, blockId, plan.params[0], plan.params[1],
                      plan.itersPerTile, emitter);
}

//===----------------------------------------------------------------------===//
// Split-K, the Stream-K family and auto: one implementation over their Spec.
//===----------------------------------------------------------------------===//

static Spec specOf(SplitKAttr a) {
  return {a.getMode() == SplitKMode::serial ? tw::Kind::SplitKSerial
                                            : tw::Kind::SplitKParallel,
          a.getSlices(), 0};
}
static Spec specOf(StreamKAttr a) {
  return {tw::Kind::StreamK, a.getGrid(), a.getSms()};
}
static Spec specOf(StreamKDPAttr a) {
  return {tw::Kind::StreamKDP, 0, a.getSms()};
}
static Spec specOf(StreamK2TileAttr a) {
  return {tw::Kind::StreamK2Tile, 0, a.getSms()};
}

#define EXT_PLAN_DECOMPOSITION(ATTR, SPEC)                                     \
  int64_t ATTR::getNumBlocks(int64_t numTiles, int64_t iters,                  \
                             const DeviceFacts &device) const {                \
    std::optional<tw::Plan> p = planOf(SPEC, numTiles, iters, device);         \
    return p ? p->grid : 0;                                                    \
  }                                                                            \
  bool ATTR::splitsReduction() const { return true; }                          \
  LogicalResult ATTR::verifyProblem(                                           \
      function_ref<InFlightDiagnostic()> emitError, int64_t numTiles,          \
      int64_t iters, const DeviceFacts &device) const {                        \
    return verifySpec(SPEC, *this, emitError, numTiles, iters, device);        \
  }                                                                            \
  int64_t ATTR::getNumPartials(int64_t numTiles, int64_t iters,                \
                               const DeviceFacts &device) const {              \
    std::optional<tw::Plan> p = planOf(SPEC, numTiles, iters, device);         \
    return p ? p->numSlots() : 0;                                              \
  }                                                                            \
  std::optional<WorkPrediction> ATTR::predictWork(                             \
      int64_t numTiles, int64_t iters, const DeviceFacts &device,              \
      double partialCost) const {                                              \
    return predictSpec(SPEC, numTiles, iters, device, partialCost);            \
  }                                                                            \
  LogicalResult ATTR::emitWorkUnits(OpBuilder &b, Location loc, Value blockId, \
                                    int64_t numTiles, int64_t iters,           \
                                    const DeviceFacts &device,                 \
                                    TileWorkEmitter &emitter) const {          \
    if (failed(requireSms(SPEC, *this, device, loc)))                          \
      return failure();                                                        \
    std::optional<tw::Plan> p = planOf(SPEC, numTiles, iters, device);         \
    return p ? emitPlan(b, loc, blockId, staticValues(b, *p), emitter)         \
             : failure();                                                      \
  }

#define EXT_REDUCTION_LAUNCH(ATTR, SPEC)                                       \
  int64_t ATTR::getNumReductionBlocks(int64_t numTiles, int64_t iters,         \
                                      const DeviceFacts &device) const {       \
    std::optional<tw::Plan> p = planOf(SPEC, numTiles, iters, device);         \
    return p ? p->reductionGrid() : 0;                                         \
  }                                                                            \
  LogicalResult ATTR::emitReductionUnits(                                      \
      OpBuilder &b, Location loc, Value blockId, int64_t numTiles,             \
      int64_t iters, const DeviceFacts &device, TileWorkEmitter &emitter)      \
      const {                                                                  \
    std::optional<tw::Plan> p = planOf(SPEC, numTiles, iters, device);         \
    return p ? emitReduction(b, loc, blockId, staticValues(b, *p), emitter)   \
             : failure();                                                     \
  }

#define EXT_PLAN_AT_LAUNCH(ATTR, SPEC)                                         \
  bool ATTR::plansAtLaunch() const { return true; }                            \
  FailureOr<LaunchPlan> ATTR::emitLaunchPlan(                                  \
      OpBuilder &b, Location loc, Value numTiles, OpFoldResult iters,          \
      const DeviceFacts &device, double) const {                               \
    return planAtLaunch(b, loc, SPEC, *this, numTiles, iters, device);         \
  }                                                                            \
  LogicalResult ATTR::emitLaunchWorkUnits(OpBuilder &b, Location loc,          \
                                          Value blockId,                       \
                                          const LaunchPlan &plan,              \
                                          TileWorkEmitter &emitter) const {    \
    Spec spec = SPEC;                                                          \
    return emitPlan(b, loc, blockId,                                           \
                    launchValues(spec.kind, spec.param, plan, b), emitter);    \
  }

EXT_PLAN_DECOMPOSITION(SplitKAttr, specOf(*this))
EXT_REDUCTION_LAUNCH(SplitKAttr, specOf(*this))
EXT_PLAN_AT_LAUNCH(SplitKAttr, specOf(*this))
EXT_PLAN_AT_LAUNCH(StreamKAttr, specOf(*this))
EXT_PLAN_AT_LAUNCH(StreamKDPAttr, specOf(*this))
EXT_PLAN_AT_LAUNCH(StreamK2TileAttr, specOf(*this))

LogicalResult SplitKAttr::emitLaunchReductionUnits(
    OpBuilder &b, Location loc, Value blockId, const LaunchPlan &plan,
    TileWorkEmitter &emitter) const {
  Spec spec = specOf(*this);
  return emitReduction(b, loc, blockId,
                       launchValues(spec.kind, spec.param, plan, b), emitter);
}
EXT_PLAN_DECOMPOSITION(StreamKAttr, specOf(*this))
EXT_PLAN_DECOMPOSITION(StreamKDPAttr, specOf(*this))
EXT_PLAN_DECOMPOSITION(StreamK2TileAttr, specOf(*this))

//===----------------------------------------------------------------------===//
// What `auto` weighs
//===----------------------------------------------------------------------===//

SmallVector<Attribute>
SplitKAttr::getAutoCandidates(int64_t, int64_t, const DeviceFacts &) const {
  SmallVector<Attribute> out;
  for (int64_t slices : {2, 4, 8, 16})
    for (SplitKMode mode : {SplitKMode::serial, SplitKMode::parallel})
      out.push_back(SplitKAttr::get(getContext(), slices, mode));
  return out;
}

SmallVector<Attribute>
StreamKAttr::getAutoCandidates(int64_t, int64_t,
                               const DeviceFacts &device) const {
  // One CTA per SM: the grid the paper's basic Stream-K uses.
  return {StreamKAttr::get(getContext(), device.numSMs, 0)};
}

SmallVector<Attribute>
StreamKDPAttr::getAutoCandidates(int64_t, int64_t, const DeviceFacts &) const {
  return {StreamKDPAttr::get(getContext(), 0)};
}

SmallVector<Attribute>
StreamK2TileAttr::getAutoCandidates(int64_t, int64_t,
                                    const DeviceFacts &) const {
  return {StreamK2TileAttr::get(getContext(), 0)};
}

//===----------------------------------------------------------------------===//
// AutoAttr: resolved by ext-apply-schedule (ScheduleResolution.cpp), never
// lowered itself.
//===----------------------------------------------------------------------===//

int64_t AutoAttr::getNumBlocks(int64_t, int64_t, const DeviceFacts &) const {
  return 0;
}

bool AutoAttr::splitsReduction() const { return true; }

/// Why `auto` cannot be lowered, completing its diagnostic.
static InFlightDiagnostic refuseAuto(InFlightDiagnostic diag, AutoAttr a) {
  return std::move(diag) << "decomposition " << a
                         << " is chosen by ext-apply-schedule; an ext.kernel "
                            "must name the decomposition it runs";
}

LogicalResult
AutoAttr::verifyProblem(function_ref<InFlightDiagnostic()> emitError,
                        int64_t, int64_t, const DeviceFacts &) const {
  return refuseAuto(emitError(), *this);
}

LogicalResult AutoAttr::emitWorkUnits(OpBuilder &, Location loc, Value,
                                      int64_t, int64_t, const DeviceFacts &,
                                      TileWorkEmitter &) const {
  return refuseAuto(emitError(loc), *this);
}

SmallVector<Attribute> AutoAttr::getAutoCandidates(int64_t, int64_t,
                                                   const DeviceFacts &) const {
  return {};
}

bool AutoAttr::plansAtLaunch() const { return true; }

FailureOr<LaunchPlan> AutoAttr::emitLaunchPlan(OpBuilder &b, Location loc,
                                               Value numTiles,
                                               OpFoldResult iters,
                                               const DeviceFacts &device,
                                               double partialCost) const {
  return autoAtLaunch(b, loc, *this, numTiles, iters, device, partialCost);
}

LogicalResult AutoAttr::emitLaunchWorkUnits(OpBuilder &b, Location loc,
                                            Value blockId,
                                            const LaunchPlan &plan,
                                            TileWorkEmitter &emitter) const {
  // Every candidate is a Stream-K region and then whole tiles.
  return emitPlan(b, loc, blockId,
                  launchValues(tw::Kind::StreamKDP, 1, plan, b), emitter);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult SplitKAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t slices, SplitKMode) {
  if (slices < 1 || slices > std::numeric_limits<int32_t>::max())
    return emitError() << "split_k slices must be in [1, 2147483647] (the "
                          "grid's x limit), got "
                       << slices;
  return success();
}

LogicalResult StreamKAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t grid, int64_t sms) {
  return verifyGridAndSms(emitError, "stream_k", grid, sms);
}

LogicalResult
StreamKDPAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t sms) {
  return verifySms(emitError, "stream_k_dp", sms);
}

LogicalResult
StreamK2TileAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t sms) {
  return verifySms(emitError, "stream_k_2tile", sms);
}

LogicalResult AutoAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t sms) {
  return verifySms(emitError, "auto", sms);
}

//===----------------------------------------------------------------------===//
// Plans for reports
//===----------------------------------------------------------------------===//

std::optional<tw::Plan> ext::planOfDecomposition(Attribute decomposition,
                                                 int64_t tiles, int64_t iters,
                                                 const DeviceFacts &device) {
  if (isa<DataParallelAttr>(decomposition))
    return tw::makePlan(tw::Kind::DataParallel, tiles, iters, device.numSMs,
                        0, nullptr);
  if (auto a = dyn_cast<SplitKAttr>(decomposition))
    return planOf(specOf(a), tiles, iters, device);
  if (auto a = dyn_cast<StreamKAttr>(decomposition))
    return planOf(specOf(a), tiles, iters, device);
  if (auto a = dyn_cast<StreamKDPAttr>(decomposition))
    return planOf(specOf(a), tiles, iters, device);
  if (auto a = dyn_cast<StreamK2TileAttr>(decomposition))
    return planOf(specOf(a), tiles, iters, device);
  return std::nullopt;
}
