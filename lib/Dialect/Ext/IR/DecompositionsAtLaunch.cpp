//===- DecompositionsAtLaunch.cpp - decomposition plans made at launch ----===//
//
// The closed forms of tilework::makePlan (ext/Model/TileWork.h) as host code
// (CUTLASS's host-side params, in IR), for a tile count known only at
// launch; `#ext.auto` asks the launch planner (ext/Runtime/LaunchPlannerABI.h)
// and selects its candidate's numbers. Apart from Decompositions.cpp, which
// emits the work units both kinds of plan drive.
//
//===----------------------------------------------------------------------===//

#include "DecompositionSpec.h"

#include "ext/Runtime/LaunchPlannerABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace ext;
using namespace ext::decomposition;

namespace {

/// The launch checks tiles < 2^31 and the grid's x limit (KernelToGPU), so
/// every product the plan's index math forms is below 2^31 * iters * ctas,
/// ctas bounding the Stream-K region's grid: refuses kernels where that
/// could overflow, and specs no tile count can run (split-K's slices beyond
/// the iterations). An iteration count known only at launch is checked
/// there: `plan.checks` gets what must hold.
LogicalResult verifyAtLaunch(OpBuilder &b, const Spec &spec, Attribute attr,
                             Location loc, OpFoldResult iters, int64_t sms,
                             LaunchPlan &plan) {
  std::optional<int64_t> staticIters = getConstantIntValue(iters);
  bool split = spec.kind == tw::Kind::SplitKSerial ||
               spec.kind == tw::Kind::SplitKParallel;
  // The least count the spec can run, where the count is known only later.
  int64_t least = split ? std::max<int64_t>(spec.param, 1) : 1;
  std::string why;
  if (!tw::makePlan(spec.kind, 1, staticIters.value_or(least), sms,
                    spec.param, &why))
    return emitError(loc) << "decomposition " << attr << " cannot " << why;
  int64_t ctas = std::max<int64_t>({spec.param, sms, 1});
  int64_t bound = std::numeric_limits<int64_t>::max() /
                  int64_t(std::numeric_limits<int32_t>::max()) / ctas;
  if (staticIters) {
    if (*staticIters > bound)
      return emitError(loc) << "decomposition " << attr << " cannot plan "
                            << *staticIters
                            << " iterations per tile at launch "
                            << "without overflowing its 64-bit index math";
    return success();
  }
  std::string what;
  llvm::raw_string_ostream(what) << "decomposition " << attr << ": ";
  using Pred = arith::CmpIPredicate;
  Value n = cast<Value>(iters);
  auto atLeast = [&](int64_t k) {
    return arith::CmpIOp::create(b, loc, Pred::sge, n, cst(b, loc, k))
        .getResult();
  };
  plan.checks.push_back(
      {atLeast(1), what + "no reduce iteration at launch (a reduce extent "
                          "of 0)"});
  if (least > 1)
    plan.checks.push_back(
        {atLeast(least), what + "fewer than " + std::to_string(least) +
                             " reduce iterations per tile at launch (each "
                             "slice needs one)"});
  plan.checks.push_back(
      {arith::CmpIOp::create(b, loc, Pred::sle, n, cst(b, loc, bound)),
       what + "more than " + std::to_string(bound) +
           " reduce iterations per tile at launch (its 64-bit index math "
           "would overflow)"});
  return success();
}

Value minUI(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinUIOp::create(b, loc, x, y);
}

/// The Stream-K family's numbers at launch (tw::makePlan's).
struct StreamKNumbers {
  Value grid, skTiles, skGrid;
};

StreamKNumbers streamKAtLaunch(OpBuilder &b, Location loc, tw::Kind kind,
                               Value tiles, OpFoldResult iters, int64_t sms,
                               int64_t grid) {
  using Pred = arith::CmpIPredicate;
  Value itersV = val(b, loc, iters), smsV = cst(b, loc, sms);
  auto region = [&](Value skTiles, Value ctas) {
    return minUI(b, loc, ctas, arith::MulIOp::create(b, loc, skTiles, itersV));
  };
  switch (kind) {
  case tw::Kind::DataParallel: {
    Value zero = cst(b, loc, 0);
    return {tiles, zero, zero};
  }
  case tw::Kind::StreamK: {
    Value skGrid = region(tiles, cst(b, loc, grid ? grid : sms));
    return {skGrid, tiles, skGrid};
  }
  case tw::Kind::StreamKDP:
  case tw::Kind::StreamK2Tile: {
    Value zero = cst(b, loc, 0);
    Value full = arith::DivUIOp::create(b, loc, tiles, smsV);
    Value rest = arith::RemUIOp::create(b, loc, tiles, smsV);
    Value shared = rest;
    if (kind == tw::Kind::StreamK2Tile)
      shared = arith::SelectOp::create(
          b, loc, arith::CmpIOp::create(b, loc, Pred::eq, full, zero), rest,
          arith::AddIOp::create(b, loc, smsV, rest));
    Value skTiles = arith::SelectOp::create(
        b, loc, arith::CmpIOp::create(b, loc, Pred::ne, rest, zero), shared,
        zero);
    Value skGrid = region(skTiles, smsV);
    Value total = arith::AddIOp::create(
        b, loc, skGrid, arith::SubIOp::create(b, loc, tiles, skTiles));
    return {total, skTiles, skGrid};
  }
  case tw::Kind::SplitKSerial:
  case tw::Kind::SplitKParallel:
    break;
  }
  llvm_unreachable("not a Stream-K kind");
}

} // namespace

FailureOr<LaunchPlan> decomposition::planAtLaunch(OpBuilder &b, Location loc,
                                   const Spec &spec, Attribute attr,
                                   Value tiles, OpFoldResult iters,
                                   const DeviceFacts &device) {
  if (failed(requireSms(spec, attr, device, loc)))
    return failure();
  int64_t sms = withSms(device, spec.sms).numSMs;
  LaunchPlan plan;
  if (failed(verifyAtLaunch(b, spec, attr, loc, iters, sms, plan)))
    return failure();
  plan.itersPerTile = iters;
  plan.params.push_back(tiles);
  switch (spec.kind) {
  case tw::Kind::DataParallel:
    plan.grid = tiles;
    return plan;
  case tw::Kind::SplitKSerial:
  case tw::Kind::SplitKParallel: {
    int64_t slices = spec.param;
    plan.grid = arith::MulIOp::create(b, loc, tiles, cst(b, loc, slices));
    bool parallel = spec.kind == tw::Kind::SplitKParallel;
    if (parallel) {
      plan.numPartials = plan.grid;
      plan.reductionGrid = tiles;
    } else if (slices > 1) {
      plan.numPartials =
          arith::MulIOp::create(b, loc, tiles, cst(b, loc, slices - 1));
    }
    return plan;
  }
  case tw::Kind::StreamK:
  case tw::Kind::StreamKDP:
  case tw::Kind::StreamK2Tile: {
    StreamKNumbers n =
        streamKAtLaunch(b, loc, spec.kind, tiles, iters, sms, spec.param);
    plan.grid = n.grid;
    plan.numPartials = n.skGrid;
    llvm::append_range(plan.params, ArrayRef<Value>{n.grid, n.skTiles,
                                                    n.skGrid});
    return plan;
  }
  }
  return failure();
}

PlanValues decomposition::launchValues(tw::Kind kind, int64_t slices, const LaunchPlan &plan,
                        Builder &b) {
  PlanValues v;
  v.kind = kind;
  v.tiles = plan.params[0];
  v.iters = plan.itersPerTile;
  v.slices = slices;
  v.grid = plan.grid;
  if (plan.params.size() == 4) {
    v.grid = plan.params[1];
    v.skTiles = plan.params[2];
    v.skGrid = plan.params[3];
  } else {
    v.skTiles = v.skGrid = b.getIndexAttr(0);
  }
  return v;
}

FailureOr<LaunchPlan> decomposition::autoAtLaunch(OpBuilder &b, Location loc, AutoAttr attr,
                                   Value tiles, OpFoldResult iters,
                                   const DeviceFacts &device,
                                   double partialCost) {
  // Its candidates run Stream-K regions on the SM count.
  Spec streamK{tw::Kind::StreamK, 0, attr.getSms()};
  if (failed(requireSms(streamK, attr, device, loc)))
    return failure();
  int64_t sms = withSms(device, attr.getSms()).numSMs;
  LaunchPlan plan;
  if (failed(verifyAtLaunch(b, streamK, attr, loc, iters, sms, plan)))
    return failure();
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  if (!module)
    return emitError(loc) << "decomposition " << attr
                          << " at launch needs an enclosing module";
  Type i64 = b.getI64Type();
  auto fnType = b.getFunctionType({i64, i64, i64, b.getF64Type()}, {i64});
  auto fn = module.lookupSymbol<func::FuncOp>(EXT_CHOOSE_DECOMPOSITION_NAME);
  if (!fn) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(b, loc, EXT_CHOOSE_DECOMPOSITION_NAME, fnType);
    fn.setPrivate();
  } else if (fn.getFunctionType() != fnType) {
    return emitError(loc) << "'" << EXT_CHOOSE_DECOMPOSITION_NAME
                          << "' is declared with another type";
  }
  auto asI64 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, i64, v).getResult();
  };
  Value cost = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(partialCost));
  std::optional<int64_t> staticIters = getConstantIntValue(iters);
  Value itersI64 =
      staticIters ? arith::ConstantIntOp::create(b, loc, *staticIters, 64)
                  : asI64(cast<Value>(iters));
  Value choice =
      func::CallOp::create(
          b, loc, fn,
          ValueRange{asI64(tiles), itersI64,
                     arith::ConstantIntOp::create(b, loc, sms, 64), cost})
          .getResult(0);
  plan.itersPerTile = iters;
  plan.checks.push_back(
      {arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, choice,
                             arith::ConstantIntOp::create(b, loc, 0, 64)),
       "decomposition #ext.auto found no candidate that can run the launch's "
       "tile count"});
  // Candidate i's numbers, selected by the planner's answer.
  StreamKNumbers chosen;
  for (int64_t i = 0; i < tw::kNumLaunchCandidates; ++i) {
    StreamKNumbers n = streamKAtLaunch(b, loc, tw::kLaunchCandidates[i], tiles,
                                       iters, sms, /*grid=*/0);
    if (i == 0) {
      chosen = n;
      continue;
    }
    Value is = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, choice,
        arith::ConstantIntOp::create(b, loc, i, 64));
    auto pick = [&](Value x, Value y) {
      return arith::SelectOp::create(b, loc, is, x, y).getResult();
    };
    chosen = {pick(n.grid, chosen.grid), pick(n.skTiles, chosen.skTiles),
              pick(n.skGrid, chosen.skGrid)};
  }
  plan.grid = chosen.grid;
  plan.numPartials = chosen.skGrid;
  plan.params = {tiles, chosen.grid, chosen.skTiles, chosen.skGrid};
  return plan;
}

