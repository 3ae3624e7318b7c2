//===- WarpSpecializedKLoop.cpp - producer and consumers of a k-loop ------===//
//
// The k-loop of `specialize = cooperative`: a producer warpgroup loads the
// stages by TMA while the consumer warpgroups compute, the two handing each
// stage back and forth through a pair of mbarriers (CUTLASS's TMA
// warp-specialized pipeline). Step n of the CTA (counted across its work
// units, ext.pipeline_base) uses stage n mod N in fill n / N:
//
//   producer (one thread):            consumers:
//     wait empty[s] (fill - 1 done)     wait full[s] (fill done)
//     arrive.expect_tx full[s]          compute (wgmma, commit)
//     bulk tensor copies into s         release empty[s'] once retired
//
// `empty` is waited at the opposite parity: a fresh barrier's previous
// phase counts as complete, so the first fill of every stage goes at once.
// With MMAs in flight (wait_group 1) a step's stage is released after the
// next step's wait, which retires its group.
//
//===----------------------------------------------------------------------===//

#include "WarpSpecialization.h"
#include "KLoop.h"
#include "TileIR.h"
#include "TmaLoads.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

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

/// NVPTX's shared::cta and shared::cluster address spaces.
constexpr unsigned kSharedAddressSpace = 3, kSharedClusterAddressSpace = 7;

/// Stage and phase of the pipeline, carried through a loop.
struct StagePhase {
  Value stage, phase;
};

/// The next step's stage and phase: the stage wraps at N, flipping the
/// phase.
StagePhase advance(RewriterBase &rw, Location loc, StagePhase at,
                   int64_t stages) {
  auto [next, wraps] = nextStage(rw, loc, at.stage, stages);
  return {next, arith::XOrIOp::create(rw, loc, at.phase, wraps)};
}

/// How a thread block cluster of CM x CN CTAs (over the last two blocked
/// axes) shares the k-loop's tiles. An input that does not move with the
/// row tiles is the same for the CM CTAs of a cluster column: the column's
/// first CTA loads it into all of them. One that does not move with the
/// column tiles, likewise across a cluster row. Each stage is then written
/// by the CTAs of the row and column that share an input, whose consumers
/// all release it.
struct ClusterSharing {
  SmallVector<TmaMulticast> multicast;
  /// Ranks of the other CTAs whose producers write into this CTA's stages
  /// (the CTA's releases go to them too).
  SmallVector<Value> peers;
};

ClusterSharing planClusterSharing(RewriterBase &rw, Location loc,
                                  ComputeOp op, const TilingPlan &plan,
                                  ArrayRef<int64_t> cluster) {
  ClusterSharing sharing;
  if (cluster.empty() || cluster[0] * cluster[1] == 1)
    return sharing;
  auto c = [&](int64_t v) { return constIndex(rw, loc, v); };
  int64_t cm = cluster[0], cn = cluster[1];
  unsigned nb = plan.blockedAxes.size();
  unsigned rowAxis = plan.blockedAxes[nb - 2], colAxis = plan.blockedAxes[nb - 1];
  auto movesWith = [&](unsigned input, unsigned axis) {
    return llvm::any_of(plan.windows[input].dims, [&](const WindowDim &d) {
      return d.coeffs[axis] != 0;
    });
  };
  Location clusterLoc = phaseLoc(loc, "CTA's place in its cluster");
  Value rank = gpu::ClusterBlockIdOp::create(rw, clusterLoc, gpu::Dimension::x);
  Value rm = arith::RemUIOp::create(rw, clusterLoc, rank, c(cm));
  Value rn = arith::DivUIOp::create(rw, clusterLoc, rank, c(cm));
  auto isZero = [&](Value v) {
    return arith::CmpIOp::create(rw, clusterLoc, arith::CmpIPredicate::eq, v,
                                 c(0))
        .getResult();
  };
  auto toMask = [&](Value v) {
    return arith::IndexCastOp::create(rw, clusterLoc, rw.getI16Type(), v)
        .getResult();
  };
  bool acrossColumn = false, acrossRow = false;
  sharing.multicast.resize(op.getInputs().size());
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    if (!plan.cached.test(i))
      continue;
    if (cm > 1 && !movesWith(i, rowAxis)) {
      // The cluster column's CTAs: ranks rn * CM ... rn * CM + CM - 1.
      acrossColumn = true;
      sharing.multicast[i] = {
          isZero(rm),
          toMask(arith::ShLIOp::create(
              rw, clusterLoc, c((int64_t(1) << cm) - 1),
              arith::MulIOp::create(rw, clusterLoc, rn, c(cm))))};
    } else if (cn > 1 && !movesWith(i, colAxis)) {
      // The cluster row's CTAs: ranks rm, rm + CM, ...
      acrossRow = true;
      int64_t row = 0;
      for (int64_t j = 0; j < cn; ++j)
        row |= int64_t(1) << (j * cm);
      sharing.multicast[i] = {
          isZero(rn),
          toMask(arith::ShLIOp::create(rw, clusterLoc, c(row), rm))};
    }
  }
  for (int64_t d = 1; acrossColumn && d < cm; ++d)
    sharing.peers.push_back(arith::AddIOp::create(
        rw, clusterLoc, arith::MulIOp::create(rw, clusterLoc, rn, c(cm)),
        arith::RemUIOp::create(
            rw, clusterLoc, arith::AddIOp::create(rw, clusterLoc, rm, c(d)),
            c(cm))));
  for (int64_t d = 1; acrossRow && d < cn; ++d)
    sharing.peers.push_back(arith::AddIOp::create(
        rw, clusterLoc,
        arith::MulIOp::create(
            rw, clusterLoc,
            arith::RemUIOp::create(
                rw, clusterLoc, arith::AddIOp::create(rw, clusterLoc, rn, c(d)),
                c(cn)),
            c(cm)),
        rm));
  return sharing;
}

} // namespace

LogicalResult tiling::checkWarpSpecialization(
    ComputeOp op, const TilingPlan &plan, ScheduleAttr schedule,
    FragmentLayoutAttrInterface layout, size_t numAttached,
    TileDecompositionAttrInterface decomposition) {
  auto err = [&]() {
    return op.emitOpError()
           << "schedule with specialize = "
           << stringifyWarpSpecialization(schedule.getSpecialize()) << ": ";
  };
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(layout);
  if (!mma || !mma.isWarpgroup())
    return err() << "its consumers compute on warpgroup MMAs; mma resolved to "
                 << (layout ? Twine("another layout") : Twine("none"));
  if (!plan.useFragments || !plan.kAxis)
    return err() << "there is no k-loop to split between a producer and "
                    "consumers";
  if (numAttached)
    return err() << "producers attached with compute_at synchronize the "
                    "whole CTA every k-step, which the producer warpgroup "
                    "never joins";
  if (auto splitK = dyn_cast<SplitKAttr>(decomposition);
      splitK && splitK.getMode() == SplitKMode::parallel)
    return err() << "decomposition " << decomposition
                 << " reduces the slices in a second launch, which has no "
                    "producer part (use mode = serial, Stream-K or a whole-"
                    "tile decomposition)";
  if (isa<AutoAttr>(decomposition))
    return err() << "decomposition " << decomposition
                 << " chooses at launch, possibly parallel split-K, whose "
                    "second launch has no producer part: name the "
                    "decomposition";
  int64_t threads = schedule.getNumThreads();
  if (schedule.getSpecialize() == WarpSpecialization::pingpong) {
    if (threads != 128)
      return err() << "each tile is one consumer warpgroup's: threads must "
                      "make 128 (warps = [4, 1]), not "
                   << threads;
    if (llvm::any_of(plan.outputCache, [](CacheAttr c) { return c; }))
      return err() << "its two consumer warpgroups' epilogues run at once "
                      "and would share the shared-memory tile of a cached "
                      "output: store the output from the fragments (no "
                      "#ext.cache on it)";
    if (!isa<PersistentAttr>(decomposition))
      return err() << "its two consumer warpgroups take a CTA's tiles in "
                      "turn: the decomposition must be #ext.persistent (not "
                   << decomposition << ", which gives a CTA one unit or "
                                       "splits tiles)";
    return success();
  }
  if (threads % 128 || threads + 128 > 1024)
    return err() << "its " << threads
                 << " consumer threads must be whole warpgroups, at most 896 "
                    "(the producer warpgroup makes the CTA 128 larger)";
  return success();
}

void tiling::emitWarpSpecializedKLoop(
    RewriterBase &rw, Location loc, ComputeOp op, const TilingPlan &plan,
    ScheduleAttr schedule, const TileFrame &frame, Value kBegin, Value kEnd,
    ArrayRef<SmallVector<Value>> stageBufs, bool mmaInFlight,
    const TmaLoads &tma, bool weakenRelease,
    function_ref<void(ArrayRef<Value>, ArrayRef<Value>, ValueRange)> compute) {
  MLIRContext *ctx = rw.getContext();
  // Weakened (tests), consumers release each stage as soon as they issued
  // its MMAs, which may still be reading it.
  bool releaseLate = mmaInFlight && !weakenRelease;
  unsigned k = *plan.kAxis;
  int64_t stages = schedule.getStages();
  int64_t tileK = plan.tile[k];
  auto c = [&](int64_t v) { return constIndex(rw, loc, v); };
  auto offsetsAt = [&](Value step) {
    SmallVector<Value> offsets(frame.offsets);
    offsets[k] = arith::MulIOp::create(rw, loc, step, c(tileK));
    return offsets;
  };

  auto group = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
      stages);
  Value full = nvgpu::MBarrierCreateOp::create(
      rw, phaseLoc(loc, "full mbarriers of the stages"), group);
  Value empty = nvgpu::MBarrierCreateOp::create(
      rw, phaseLoc(loc, "empty mbarriers of the stages"), group);
  // Where this unit's first step falls in the CTA's pipeline.
  Value base = PipelineBaseOp::create(rw, loc, rw.getIndexType());
  StagePhase first = {
      arith::RemUIOp::create(rw, loc, base, c(stages)),
      arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::ne,
          arith::RemUIOp::create(
              rw, loc, arith::DivUIOp::create(rw, loc, base, c(stages)), c(2)),
          c(0))};
  Value one = arith::ConstantIntOp::create(rw, loc, rw.getI1Type(), 1);
  Value ticks = c(10000000);

  ClusterSharing sharing =
      planClusterSharing(rw, loc, op, plan, schedule.getCluster());

  // --- producer -----------------------------------------------------------
  bool pingpong = schedule.getSpecialize() == WarpSpecialization::pingpong;
  auto producer = WarpSpecializeOp::create(rw, loc, 128, full, empty, pingpong,
                                           1 + sharing.peers.size());
  {
    OpBuilder::InsertionGuard g(rw);
    rw.createBlock(&producer.getRegion());
    auto loop = scf::ForOp::create(rw, loc, kBegin, kEnd, c(1),
                                   ValueRange{first.stage, first.phase});
    rw.setInsertionPointToEnd(loop.getBody());
    StagePhase at = {loop.getRegionIterArg(0), loop.getRegionIterArg(1)};
    nvgpu::MBarrierTryWaitParityOp::create(
        rw, phaseLoc(loc, "wait for the consumers to release the stage"),
        empty, arith::XOrIOp::create(rw, loc, at.phase, one), ticks, at.stage);
    issueTmaCopies(rw, loc, op, plan, tma, offsetsAt(loop.getInductionVar()),
                   full, at.stage, stageBufs, sharing.multicast);
    StagePhase next = advance(rw, loc, at, stages);
    scf::YieldOp::create(rw, loc, ValueRange{next.stage, next.phase});
  }

  // --- consumers ----------------------------------------------------------
  // One arrival per consumer warpgroup: its first thread's, after the
  // warpgroup's wait retired the MMAs that read the stage.
  Location releaseLoc = phaseLoc(loc, "release of the stage to the producer");
  Value tid = gpu::ThreadIdOp::create(rw, releaseLoc, gpu::Dimension::x);
  Value wgLeader = arith::CmpIOp::create(
      rw, releaseLoc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(rw, releaseLoc, tid, c(128)), c(0));
  auto release = [&](Value when, Value stage) {
    Value cond = when ? arith::AndIOp::create(rw, releaseLoc, when, wgLeader)
                            .getResult()
                      : wgLeader;
    auto ifOp = scf::IfOp::create(rw, releaseLoc, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    nvgpu::MBarrierArriveOp::create(
        rw, releaseLoc, nvgpu::MBarrierTokenType::get(ctx), empty, stage);
    // And on the same stage's barrier of each CTA that writes into it, in
    // its shared memory (mapa: the address in the peer's window).
    if (sharing.peers.empty())
      return;
    Value local = LLVM::IntToPtrOp::create(
        rw, releaseLoc, LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace),
        nvgpu::MBarrierGetOp::create(rw, releaseLoc, rw.getI64Type(), empty,
                                     stage)
            .getResult());
    for (Value peer : sharing.peers) {
      Value remote = NVVM::MapaOp::create(
          rw, releaseLoc,
          LLVM::LLVMPointerType::get(ctx, kSharedClusterAddressSpace), local,
          arith::IndexCastOp::create(rw, releaseLoc, rw.getI32Type(), peer));
      // Release at the CTA's scope (PTX's default, CUTLASS's
      // ClusterBarrier::arrive): the arriving warpgroup's reads of the stage
      // retired with its wgmma wait, so nothing of its own must reach the
      // peer first. At cluster scope ptxas brackets each arrive with two
      // MEMBARs and two error barriers (8 a k-step under [2, 2]).
      NVVM::MBarrierArriveOp::create(
          rw, releaseLoc, Type(), remote, Value(),
          NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
          rw.getBoolAttr(false));
    }
  };
  Location waitLoc = phaseLoc(loc, "wait for the k-step's stage");
  auto computeStep = [&](Value step, Value bound, StagePhase at) {
    nvgpu::MBarrierTryWaitParityOp::create(rw, waitLoc, full, at.phase, ticks,
                                           at.stage);
    SmallVector<Value> bounds(frame.bounds);
    bounds[k] = bound;
    SmallVector<Value> offsets = offsetsAt(step);
    compute(offsets, bounds,
            stepOperands(rw, loc, op, plan, stageBufs, at.stage, offsets));
  };

  KSteps steps = planKSteps(rw, loc, op, plan, kEnd);
  auto loop = scf::ForOp::create(
      rw, loc, kBegin, steps.fullEnd, c(1),
      ValueRange{first.stage, first.phase, first.stage});
  if (mmaInFlight)
    loop->setAttr(kMmaInFlightAttrName, rw.getUnitAttr());
  {
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToEnd(loop.getBody());
    Value step = loop.getInductionVar();
    StagePhase at = {loop.getRegionIterArg(0), loop.getRegionIterArg(1)};
    computeStep(step, c(tileK), at);
    if (releaseLate)
      // This step's wait_group 1 retired the previous step's group.
      release(arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, step,
                                    kBegin),
              loop.getRegionIterArg(2));
    else
      release(Value(), at.stage);
    StagePhase next = advance(rw, loc, at, stages);
    scf::YieldOp::create(rw, loc, ValueRange{next.stage, next.phase, at.stage});
  }
  // After the loop the last group is waited for (wait_group 0, which the
  // warpgroup MMA lowering puts right after the loop): its stage goes back.
  if (releaseLate)
    release(arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt,
                                  steps.fullEnd, kBegin),
            loop.getResult(2));
  if (steps.peeled)
    emitPeeledStep(rw, loc, steps, kEnd, [&](Value last) {
      StagePhase at = {loop.getResult(0), loop.getResult(1)};
      computeStep(last, steps.rest, at);
      release(Value(), at.stage);
    });
}
