//===- KLoop.cpp - the k-loop of a scheduled compute ----------------------===//
//
// How ext-apply-schedule steps through the reduce axis it splits: whether a
// ragged last k-step may run as a full one (the copies' zero fill makes the
// body yield the combiner's identity) or is peeled with its own bound, and
// the pipelined k-loop of `stages = N`, whose copies run N-1 steps ahead of
// the compute into N buffers per cached input.
//
//===----------------------------------------------------------------------===//

#include "KLoop.h"
#include "TileIR.h"
#include "TmaLoads.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/Transforms/StageSelect.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

/// True if a k-step past the reduce extent may run as a full one: every
/// input indexed by the k axis is copied into shared memory (whose copy
/// fills the elements beyond the input with zero), and the body, with those
/// inputs zero, folds to the combiner's identity for every output whatever
/// the other inputs hold (a product under `sum`; not `exp` under `sum`, nor
/// anything under `max`, `min` or `prod`). An input whose dimension k
/// indexes alone is longer than k's extent (a slice from 0) holds data past
/// it, not zeros.
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
    auto type = cast<MemRefType>(op.getInputs()[i].getType());
    for (auto [r, expr] : llvm::enumerate(op.getInputMap(i).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && dim.getPosition() == k && !type.isDynamicDim(r) &&
          type.getDimSize(r) != plan.extents[k])
        return false;
    }
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
    TypedAttr identity = op.hasCustomReducer()
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

} // namespace

Value tiling::selectStage(RewriterBase &rw, Location loc, ArrayRef<Value> bufs,
                          Value stage) {
  Value buf = bufs.back();
  for (int64_t s = int64_t(bufs.size()) - 2; s >= 0; --s) {
    Value is = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, stage,
                                     constIndex(rw, loc, s));
    auto select = arith::SelectOp::create(rw, loc, is, bufs[s], buf);
    select->setAttr(kStageSelectAttrName, rw.getUnitAttr());
    buf = select;
  }
  return buf;
}

std::pair<Value, Value> tiling::nextStage(RewriterBase &rw, Location loc,
                                          Value stage, int64_t stages) {
  Value next = arith::AddIOp::create(rw, loc, stage, constIndex(rw, loc, 1));
  Value wraps = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, next,
                                      constIndex(rw, loc, stages));
  return {arith::SelectOp::create(rw, loc, wraps, constIndex(rw, loc, 0), next),
          wraps};
}

SmallVector<Value> tiling::stepOperands(RewriterBase &rw, Location loc,
                                        ComputeOp op, const TilingPlan &plan,
                                        ArrayRef<SmallVector<Value>> stageBufs,
                                        Value stage, ArrayRef<Value> offsets) {
  SmallVector<Value> ins;
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    if (plan.cached.test(i)) {
      ins.push_back(selectStage(rw, loc, stageBufs[i], stage));
      continue;
    }
    SmallVector<Value> origins;
    for (const WindowDim &d : plan.windows[i].dims)
      origins.push_back(windowOrigin(rw, loc, d, offsets));
    ins.push_back(
        tileView(rw, loc, op.getInputs()[i], origins, plan.windows[i].shape));
  }
  return ins;
}

void tiling::issueTmaCopies(RewriterBase &rw, Location loc, ComputeOp op,
                            const TilingPlan &plan, const TmaLoads &tma,
                            ArrayRef<Value> offsets, Value barriers,
                            Value stage,
                            ArrayRef<SmallVector<Value>> stageBufs,
                            ArrayRef<TmaMulticast> multicast) {
  nvgpu::MBarrierArriveExpectTxOp::create(
      rw, phaseLoc(loc, "bulk tensor copies of the k-step"), barriers,
      constIndex(rw, loc, tma.bytesPerStep), stage, Value());
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    if (!plan.cached.test(i))
      continue;
    SmallVector<Value> origins;
    for (const WindowDim &d : plan.windows[i].dims)
      origins.push_back(windowOrigin(rw, loc, d, offsets));
    // The copy engine's coordinates run innermost first.
    std::reverse(origins.begin(), origins.end());
    TmaMulticast shared = i < multicast.size() ? multicast[i] : TmaMulticast();
    std::optional<OpBuilder::InsertionGuard> issuer;
    if (shared.issue) {
      auto ifOp = scf::IfOp::create(rw, loc, shared.issue, /*withElse=*/false);
      issuer.emplace(rw);
      rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    nvgpu::TmaAsyncLoadOp::create(
        rw,
        phaseLoc(loc, "bulk tensor copy of input " + Twine(i) +
                          (shared.mask ? " multicast into the cluster's "
                                         "shared memory"
                                       : " into shared memory")),
        selectStage(rw, loc, stageBufs[i], stage), barriers, tma.maps[i],
        origins, stage, shared.mask, /*predicate=*/Value());
  }
}

KSteps tiling::planKSteps(RewriterBase &rw, Location loc, ComputeOp op,
                          const TilingPlan &plan, Value kEnd) {
  KSteps steps;
  unsigned k = *plan.kAxis;
  steps.tileK = plan.tile[k];
  // A dynamic extent may be ragged unless its stated multiple is a whole
  // number of k-steps.
  int64_t extent = plan.extents[k];
  steps.peeled = !tileDividesExtent(plan, k) && !zeroFillIsIdentity(op, plan);
  steps.fullEnd = kEnd;
  if (!steps.peeled)
    return steps;
  if (!ShapedType::isDynamic(extent)) {
    steps.last = constIndex(rw, loc, plan.iters - 1);
    steps.lastOffset = constIndex(rw, loc, (plan.iters - 1) * steps.tileK);
    steps.rest = constIndex(rw, loc, extent % steps.tileK);
  } else {
    // iters - 1 = (K - 1) / tileK (K >= 1: the launch checks), and the last
    // step's K - last * tileK in [1, tileK]: a full tile when K divides.
    Value extentV = extentValue(rw, loc, plan, k);
    Value tileK = constIndex(rw, loc, steps.tileK);
    steps.last = arith::DivUIOp::create(
        rw, loc,
        arith::SubIOp::create(rw, loc, extentV, constIndex(rw, loc, 1)),
        tileK);
    steps.lastOffset = arith::MulIOp::create(rw, loc, steps.last, tileK);
    steps.rest = arith::SubIOp::create(rw, loc, extentV, steps.lastOffset);
  }
  steps.fullEnd = arith::MinSIOp::create(rw, loc, kEnd, steps.last);
  return steps;
}

void tiling::emitPeeledStep(RewriterBase &rw, Location loc,
                            const KSteps &steps, Value kEnd,
                            function_ref<void(Value)> body) {
  Value ragged = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt,
                                       kEnd, steps.last);
  auto ifOp = scf::IfOp::create(rw, loc, ragged, /*withElse=*/false);
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(steps.last);
}

void tiling::emitPipelinedKLoop(
    RewriterBase &rw, Location loc, ComputeOp op, const TilingPlan &plan,
    ScheduleAttr schedule, const ApplyScheduleOptions &options,
    const TileFrame &frame, Value kBegin, Value kEnd,
    ArrayRef<SmallVector<Value>> stageBufs, bool mmaInFlight,
    const TmaLoads *tma,
    function_ref<void(ArrayRef<Value>, ArrayRef<Value>, ValueRange)> compute) {
  MLIRContext *ctx = rw.getContext();
  unsigned k = *plan.kAxis;
  int64_t stages = schedule.getStages();
  int64_t tileK = plan.tile[k];
  CopyStaging staging = options.asyncCopies && schedule.getAsync()
                            ? CopyStaging::async
                            : CopyStaging::registers;
  // A warpgroup MMA may leave its k-step's group in flight while the next
  // step issues (wait_group 1): the buffers it reads stay busy one step
  // longer, so the copies run one step less ahead, N-2 instead of N-1.
  // Weakened (tests), a k-loop waits for one copy group too few, or with
  // MMAs in flight, copies into the stage the previous step's group reads.
  bool weaken = options.weakenAsyncWait;
  int64_t ahead = mmaInFlight && !weaken ? stages - 2 : stages - 1;
  int64_t pending = ahead - 1 + (weaken && !mmaInFlight ? 1 : 0);
  auto stagingAttr = CopyStagingAttr::get(ctx, staging);
  unsigned numInputs = op.getInputs().size();
  auto c = [&](int64_t v) { return constIndex(rw, loc, v); };

  auto offsetsAt = [&](Value step) {
    SmallVector<Value> offsets(frame.offsets);
    offsets[k] = arith::MulIOp::create(rw, loc, step, c(tileK));
    return offsets;
  };
  // TMA stages count from the unit's first step: its mbarriers start at
  // phase 0 with stage 0.
  auto stageOf = [&](Value step) {
    if (tma)
      step = arith::SubIOp::create(rw, loc, step, kBegin);
    return arith::RemUIOp::create(rw, loc, step, c(stages)).getResult();
  };
  // Buffer `stage` of input i (a select chain over the N allocations).
  auto bufferAt = [&](unsigned i, Value stage) {
    return selectStage(rw, loc, stageBufs[i], stage);
  };

  // With TMA: one mbarrier per stage, and the thread that issues the copies.
  Value barriers, leader;
  if (tma) {
    auto group = nvgpu::MBarrierGroupType::get(
        ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        stages);
    Location at = phaseLoc(loc, "mbarriers of the stages");
    barriers = nvgpu::MBarrierCreateOp::create(rw, at, group);
    Value tid = gpu::ThreadIdOp::create(rw, at, gpu::Dimension::x);
    leader = arith::CmpIOp::create(rw, at, arith::CmpIPredicate::eq, tid, c(0));
    auto init = scf::IfOp::create(rw, at, leader, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(init.thenBlock()->getTerminator());
      for (int64_t s = 0; s < stages; ++s)
        nvgpu::MBarrierInitOp::create(rw, at, barriers, c(1), c(s), Value());
    }
    gpu::BarrierOp::create(rw, at);
  }

  auto issueCopies = [&](Value step, Value stage) {
    Value active =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, step, kEnd);
    SmallVector<Value> offsets = offsetsAt(step);
    if (tma) {
      Location at = phaseLoc(loc, "bulk tensor copies of the k-step");
      Value issue = arith::AndIOp::create(rw, at, leader, active);
      auto ifOp = scf::IfOp::create(rw, at, issue, /*withElse=*/false);
      OpBuilder::InsertionGuard inLeader(rw);
      rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      issueTmaCopies(rw, loc, op, plan, *tma, offsets, barriers, stage,
                     stageBufs);
      return;
    }
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
                     schedule.getVector(), stagingAttr,
                     plan.windows[i].rowMultiple,
                     inBoundsAttr(rw, plan.windows[i]));
    }
  };
  // A copy group closes each step (cp.async); TMA copies complete on their
  // mbarrier instead.
  auto commit = [&] {
    if (!tma)
      CopyCommitOp::create(rw, loc);
  };
  Location waitLoc = phaseLoc(loc, "wait for the k-step's stage");
  // Waits until step `step`'s tiles are in its stage (at `phase`, the
  // parity of the stage's fill) and no thread still reads what this step
  // overwrites; with TMA the barrier comes first, the copies it orders
  // between the two.
  auto waitForStage = [&](Value stage, Value phase) {
    if (!tma) {
      CopyWaitOp::create(rw, waitLoc, pending);
      return;
    }
    nvgpu::MBarrierTryWaitParityOp::create(rw, waitLoc, barriers, phase,
                                           c(10000000), stage);
  };
  auto phaseOf = [&](Value step) {
    Value fill = arith::DivUIOp::create(
        rw, loc, arith::SubIOp::create(rw, loc, step, kBegin), c(stages));
    Value odd = arith::RemUIOp::create(rw, loc, fill, c(2));
    return arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ne, odd, c(0))
        .getResult();
  };
  auto computeStep = [&](Value step, Value bound, Value stage) {
    SmallVector<Value> offsets = offsetsAt(step);
    SmallVector<Value> bounds(frame.bounds);
    bounds[k] = bound;
    compute(offsets, bounds,
            stepOperands(rw, loc, op, plan, stageBufs, stage, offsets));
  };

  // Prologue: the first `ahead` steps' copies, one group each.
  for (int64_t s = 0; s < ahead; ++s) {
    Value step = s == 0 ? kBegin
                        : arith::AddIOp::create(rw, loc, kBegin, c(s))
                              .getResult();
    issueCopies(step, stageOf(step));
    commit();
  }

  // The loop carries its stage and the one its copies fill (`ahead`
  // steps later), and with TMA the phase of its stage's mbarrier: stage
  // t + 1 is stage t + 1 wrapped at N (the phase flipping as it wraps), a
  // compare and a select, instead of a division per step.
  KSteps steps = planKSteps(rw, loc, op, plan, kEnd);
  Value firstStage = stageOf(kBegin);
  Value firstCopyStage =
      stageOf(arith::AddIOp::create(rw, loc, kBegin, c(ahead)));
  SmallVector<Value> carried = {firstStage, firstCopyStage};
  if (tma)
    carried.push_back(arith::ConstantIntOp::create(rw, loc, rw.getI1Type(), 0));
  auto loop = scf::ForOp::create(rw, loc, kBegin, steps.fullEnd, c(1), carried);
  if (mmaInFlight)
    loop->setAttr(kMmaInFlightAttrName, rw.getUnitAttr());
  {
    // With iter_args the loop is built without a terminator.
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToEnd(loop.getBody());
    Value step = loop.getInductionVar();
    Value stage = loop.getRegionIterArg(0);
    Value copyStage = loop.getRegionIterArg(1);
    if (tma)
      gpu::BarrierOp::create(rw, waitLoc);
    else
      waitForStage(stage, Value());
    issueCopies(arith::AddIOp::create(rw, loc, step, c(ahead)), copyStage);
    if (tma)
      waitForStage(stage, loop.getRegionIterArg(2));
    computeStep(step, c(tileK), stage);
    commit();
    auto [next, wraps] = nextStage(rw, loc, stage, stages);
    // N - 1 ahead, step t + 1 fills the buffer step t computed from.
    Value nextCopyStage =
        ahead == stages - 1 ? stage : nextStage(rw, loc, copyStage, stages).first;
    SmallVector<Value> yields = {next, nextCopyStage};
    if (tma)
      yields.push_back(
          arith::XOrIOp::create(rw, loc, loop.getRegionIterArg(2), wraps));
    scf::YieldOp::create(rw, loc, yields);
  }
  // The peeled ragged step's copy was issued by the prologue or the loop.
  if (steps.peeled)
    emitPeeledStep(rw, loc, steps, kEnd, [&](Value last) {
      if (!tma) {
        waitForStage(Value(), Value());
        computeStep(last, steps.rest, stageOf(last));
        return;
      }
      gpu::BarrierOp::create(rw, waitLoc);
      Value stage = stageOf(last);
      waitForStage(stage, phaseOf(last));
      computeStep(last, steps.rest, stage);
    });
  // Copies past kEnd were never issued, but the last ones issued may still
  // be in flight in a unit shorter than the pipeline: drain before the
  // buffers are rewritten (next unit) or reused (shared-memory reuse).
  // Every TMA copy issued was waited for: the mbarriers are invalidated
  // once no thread waits on them, so the next unit may initialize them.
  Location drain = phaseLoc(loc, "drain of the copy pipeline");
  if (!tma) {
    CopyWaitOp::create(rw, drain, 0);
    return;
  }
  gpu::BarrierOp::create(rw, drain);
  auto inval = scf::IfOp::create(rw, drain, leader, /*withElse=*/false);
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(inval.thenBlock()->getTerminator());
  for (int64_t s = 0; s < stages; ++s) {
    Value address =
        nvgpu::MBarrierGetOp::create(rw, drain, rw.getI64Type(), barriers, c(s));
    Value ptr = LLVM::IntToPtrOp::create(
        rw, drain, LLVM::LLVMPointerType::get(ctx, 3), address);
    NVVM::MBarrierInvalOp::create(rw, drain, ptr);
  }
}
