//===- ApplySchedule.cpp - scheduled ext.compute to ext.kernel ------------===//
//
// ext-apply-schedule: an ext.compute with a schedule becomes an ext.kernel
// whose body computes one tile (copies of the cached inputs into shared
// memory, a tile compute accumulating into fragments over the k-steps) and
// whose epilogue stores the fragments into the outputs, directly or staged
// through shared memory. This file holds the pass and the kernel it builds.
// The folder is the pass: the plan (the public TilingPlan.h, TilingPlan.cpp),
// a tile's IR (TileIR), the choices for the chip (ScheduleResolution), the
// fusions (Fusion.h: ProducerInlining, ProducerAttachment, EpilogueFusion,
// FusionChecks), the k-loop (KLoop), TMA (TmaLoads), warp specialization
// (WarpSpecialization.h, WarpSpecializedKLoop) and attention (OnlineSoftmax*),
// each behind the private header named after it.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"
#include "KLoop.h"
#include "OnlineSoftmax.h"
#include "ScheduleResolution.h"
#include "TileIR.h"
#include "TmaLoads.h"
#include "WarpSpecialization.h"

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"
#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/FastMath.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Model/TileWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace ext {
#define GEN_PASS_DEF_EXTAPPLYSCHEDULE
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

ArrayAttr axesAttr(MLIRContext *ctx, const TilingPlan &plan,
                   ArrayRef<unsigned> which) {
  SmallVector<Attribute> attrs;
  for (unsigned a : which)
    attrs.push_back(AxisAttr::get(ctx, plan.axes[a].getName(),
                                  plan.axes[a].getKind(), plan.tile[a]));
  return ArrayAttr::get(ctx, attrs);
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

/// The kernel of one scheduled compute, built in steps that share the plan
/// and what the steps before them made: the fusions (a consumer under
/// reverse_compute_at, producers under compute_at), the kernel and its two
/// blocks, the body (shared tiles, staged inputs, the k-loop) and the
/// epilogue that stores the accumulator.
class ScheduledKernelBuilder {
public:
  ScheduledKernelBuilder(RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                         TilingPlan &plan, FragmentLayoutAttrInterface layout,
                         const ApplyScheduleOptions &options)
      : rw(rw), op(op), schedule(schedule), plan(plan), layout(layout),
        options(options), loc(op.getLoc()), ctx(op.getContext()),
        numAxes(plan.axes.size()), numInputs(op.getInputs().size()),
        numOutputs(op.getOutputs().size()),
        allAxes(llvm::to_vector(llvm::seq<unsigned>(0, numAxes))) {
    for (unsigned a : plan.spatialAxes) {
      spatialTile.push_back(plan.tile[a]);
      spatialThreads.push_back(plan.threads[a]);
    }
  }

  FailureOr<KernelOp> build(ArrayRef<StringAttr> inlinedNames);

private:
  LogicalResult resolveFusion(ArrayRef<StringAttr> inlinedNames);
  void guardDynamicSizes();
  LogicalResult createKernel();
  FailureOr<DenseI64ArrayAttr>
  clusterOf(TileDecompositionAttrInterface decomposition);
  void allocateSharedTiles();
  void emitProducers(ArrayRef<Value> anchorBufs);
  SmallVector<Value> stageInputs(ArrayRef<Value> offsets);
  TileComputeOp createTileCompute(ArrayRef<Value> offsets,
                                  ArrayRef<Value> bounds, ValueRange ins,
                                  ValueRange outs, ArrayRef<AffineMap> outMaps,
                                  bool accumulate);
  void emitAccumulation();
  void emitAccumulatorFill();
  void emitIteration(Value kOffset, Value kBound);
  void emitPipelinedKSteps();
  void emitKSteps();
  void emitFragmentEpilogue();
  void emitOutputStore(unsigned o, const TileFrame &eframe,
                       ArrayRef<Value> spatialBounds,
                       ArrayRef<unsigned> spatialPos);
  void emitWithoutAccumulator();

  RewriterBase &rw;
  ComputeOp op;
  ScheduleAttr schedule;
  TilingPlan &plan;
  FragmentLayoutAttrInterface layout;
  const ApplyScheduleOptions &options;
  Location loc;
  MLIRContext *ctx;
  unsigned numAxes, numInputs, numOutputs;
  SmallVector<unsigned> allAxes;
  SmallVector<int64_t> spatialTile, spatialThreads;
  SmallVector<Type> fragTypes;

  std::optional<FusedConsumer> fused;
  std::vector<AttachedProducer> attached;
  /// A producer warpgroup joins the schedule's threads, which compute.
  bool specialized = false;

  KernelOp kernel;
  Block *body = nullptr, *epilogue = nullptr;
  unsigned numTileDims = 0;
  TileFrame frame;
  Value kBegin, kEnd;
  /// A pipelined k-loop keeps `stages` buffers per cached input (the
  /// verifier allows stages > 1 only with a k-loop and a cache).
  int64_t stages = 1;
  SmallVector<Value> sharedBufs;
  SmallVector<SmallVector<Value>> stageBufs;
  /// The buffers of the producers attached by compute_at, by the anchor
  /// input that reads them (set once they are emitted).
  SmallVector<Value> attachedBufs;
  llvm::SmallBitVector isAttached;
  SmallVector<AffineMap> inputMaps;
  /// The accumulator fragments and their maps in a tile compute.
  SmallVector<Value> frags;
  SmallVector<AffineMap> fragMaps;
};

} // namespace

/// The consumer fused by reverse_compute_at (its operands' definitions
/// hoisted above the compute) and the producers attached by compute_at.
LogicalResult
ScheduledKernelBuilder::resolveFusion(ArrayRef<StringAttr> inlinedNames) {
  FailureOr<std::optional<FusedConsumer>> fusedOr =
      resolveReverseComputeAt(op, schedule, plan);
  if (failed(fusedOr))
    return failure();
  fused = *fusedOr;
  if (fused)
    for (Operation *def : fused->hoisted)
      rw.moveOpBefore(def, op);
  FailureOr<std::vector<AttachedProducer>> attachedOr =
      resolveComputeAt(rw, op, schedule, plan, inlinedNames);
  if (failed(attachedOr))
    return failure();
  attached = std::move(*attachedOr);
  // An attached producer's region is in shared memory already: a cache of
  // it (one an inlined producer's cache passed on, say) is moot.
  for (const AttachedProducer &ap : attached)
    if (ap.anchorInput)
      plan.cached.reset(*ap.anchorInput);
  return success();
}

/// The kernel runs only if the operands' sizes agree (as
/// ext-compute-to-loops checks them): a dynamic extent is read from one
/// operand, the others are indexed by it. A fused consumer's and the
/// attached producers' own operands are checked here too.
void ScheduledKernelBuilder::guardDynamicSizes() {
  auto anyDynamic = [](ComputeOp c) {
    return llvm::any_of(c.getAxisList(),
                        [](AxisAttr a) { return a.isDynamic(); });
  };
  SmallVector<SizeCheck> checks;
  if (anyDynamic(op))
    buildCheckedExtents(rw, loc, op, checks, /*materializeStatic=*/false);
  if (fused && anyDynamic(fused->consumer))
    buildCheckedExtents(rw, loc, fused->consumer, checks,
                        /*materializeStatic=*/false);
  for (const AttachedProducer &ap : attached)
    if (anyDynamic(ap.producer))
      buildCheckedExtents(rw, loc, ap.producer, checks,
                          /*materializeStatic=*/false);
  if (!checks.empty())
    guardWithSizeChecks(rw, loc, checks);
}

/// A cluster of one CTA is none; a larger one spans the last two blocked
/// axes and needs every CTA of it on the same k-range.
FailureOr<DenseI64ArrayAttr> ScheduledKernelBuilder::clusterOf(
    TileDecompositionAttrInterface decomposition) {
  ArrayRef<int64_t> cluster = schedule.getCluster();
  if (cluster.empty() || cluster[0] * cluster[1] <= 1)
    return DenseI64ArrayAttr();
  if (plan.tileCounts.size() < 2)
    return op.emitOpError()
           << "schedule with cluster = [" << cluster[0] << ", " << cluster[1]
           << "]: the cluster spans the last two blocked "
           << "axes; the kernel blocks " << plan.tileCounts.size();
  if (!isa<DataParallelAttr, PersistentAttr>(decomposition))
    return op.emitOpError()
           << "schedule with cluster = [" << cluster[0] << ", " << cluster[1]
           << "]: the CTAs of a cluster share every k-step's "
           << "tiles, so the decomposition must give each the same k-range "
              "(#ext.data_parallel or #ext.persistent), not "
           << decomposition;
  return rw.getDenseI64ArrayAttr(cluster);
}

/// The kernel op, its decomposition resolved (at launch where a tile count
/// or the k-steps are dynamic: computed here, on the host), and its body
/// and epilogue blocks.
LogicalResult ScheduledKernelBuilder::createKernel() {
  SmallVector<Value> dynamicTiles;
  bool dynamicGrid = false;
  int64_t numTiles = 1;
  for (auto [d, t] : llvm::enumerate(plan.tileCounts)) {
    if (!ShapedType::isDynamic(t)) {
      numTiles = llvm::checkedMul(numTiles, t).value_or(INT64_MAX);
      continue;
    }
    unsigned a = plan.blockedAxes[d];
    dynamicGrid = true;
    dynamicTiles.push_back(tileCountValue(rw, loc, plan, a));
  }
  int64_t tileK = plan.kAxis ? plan.tile[*plan.kAxis] : 1;
  // The k-steps of a reduce axis of dynamic extent are counted here too.
  OpFoldResult iters = itersValue(rw, loc, plan);
  bool atLaunch = dynamicGrid || ShapedType::isDynamic(plan.iters);
  FailureOr<TileDecompositionAttrInterface> decomposition =
      atLaunch
          ? resolveLaunchDecomposition(
                op, schedule.getDecompositionOrDefault(),
                dynamicGrid ? ShapedType::kDynamic : numTiles, plan.iters,
                tileK, options)
          : resolveDecomposition(op, schedule.getDecompositionOrDefault(),
                                 numTiles, plan.iters, tileK, options);
  if (failed(decomposition))
    return failure();
  // A split tile's partial accumulators combine with the compute's combiner.
  bool hasCombiner = plan.useFragments && op.getCombiner();
  specialized = schedule.getSpecialize() != WarpSpecialization::none;
  if (specialized && failed(checkWarpSpecialization(op, plan, schedule, layout,
                                                    attached.size(),
                                                    *decomposition)))
    return failure();
  FailureOr<DenseI64ArrayAttr> clusterAttr = clusterOf(*decomposition);
  if (failed(clusterAttr))
    return failure();
  kernel = KernelOp::create(
      rw, loc, dynamicTiles, rw.getDenseI64ArrayAttr(plan.tileCounts),
      dyn_cast<Value>(iters), plan.iters,
      // Ping-pong: two consumer warpgroups, each running the schedule's
      // threads on its own tiles.
      schedule.getNumThreads() *
              (schedule.getSpecialize() == WarpSpecialization::pingpong ? 2
                                                                        : 1) +
          (specialized ? 128 : 0),
      *decomposition, schedule.getRaster(), schedule.getSwizzle(),
      hasCombiner ? op.getCombinerAttr() : CombinerKindAttr(),
      hasCombiner ? op.getIdentityAttr() : ArrayAttr(),
      // What a fixup costs the cost model, for plans made at launch.
      atLaunch && (*decomposition).splitsReduction()
          ? rw.getF64FloatAttr(
                tilework::CostModel::forTileK(tileK).partialCost)
          : FloatAttr(),
      *clusterAttr);
  if (hasCombiner && !op.getReducer().empty()) {
    IRMapping mapping;
    op.getReducer().cloneInto(&kernel.getReducer(), mapping);
  }

  numTileDims = plan.tileCounts.size();
  SmallVector<Type> bodyArgTypes(numTileDims + 2, rw.getIndexType());
  SmallVector<Location> bodyArgLocs(bodyArgTypes.size(), loc);
  body = rw.createBlock(&kernel.getBody(), {}, bodyArgTypes, bodyArgLocs);
  SmallVector<Type> epiArgTypes(numTileDims, rw.getIndexType());
  llvm::append_range(epiArgTypes, fragTypes);
  SmallVector<Location> epiArgLocs(epiArgTypes.size(), loc);
  epilogue =
      rw.createBlock(&kernel.getEpilogue(), {}, epiArgTypes, epiArgLocs);
  return success();
}

/// The cached inputs' shared tiles, allocated where they start to live:
/// after the producers attached before a k-loop, whose buffers (a
/// cross-thread combine's scratch) may then share their bytes.
void ScheduledKernelBuilder::allocateSharedTiles() {
  for (unsigned i = 0; i < numInputs; ++i) {
    if (!plan.cached.test(i))
      continue;
    Type elem = cast<MemRefType>(op.getInputs()[i].getType()).getElementType();
    ArrayRef<StorageAlignAttr> aligns = plan.cacheAttrs[i].getAlign();
    auto type = sharedTileType(plan.windows[i].shape, elem, aligns);
    assert(type && "planTiling checked the shared tile's size");
    ArrayAttr alignAttr =
        aligns.empty() ? ArrayAttr()
                       : rw.getArrayAttr(SmallVector<Attribute>(
                             aligns.begin(), aligns.end()));
    for (int64_t s = 0; s < stages; ++s)
      stageBufs[i].push_back(AllocSharedOp::create(
          rw,
          phaseLoc(loc, "shared tile of input " + Twine(i) +
                            (stages > 1 ? ", stage " + Twine(s) : Twine())),
          type, alignAttr, plan.cacheAttrs[i].getSwizzle()));
    sharedBufs[i] = stageBufs[i].front();
  }
}

void ScheduledKernelBuilder::emitProducers(ArrayRef<Value> anchorBufs) {
  emitAttachedProducers(rw, loc, frame, anchorBufs, attached);
  for (const AttachedProducer &ap : attached)
    if (ap.anchorInput)
      attachedBufs[*ap.anchorInput] = ap.buffer;
}

/// Stages the cached inputs and returns every input's tile operand.
SmallVector<Value>
ScheduledKernelBuilder::stageInputs(ArrayRef<Value> offsets) {
  SmallVector<Value> operands;
  for (unsigned i = 0; i < numInputs; ++i) {
    if (isAttached.test(i)) {
      operands.push_back(attachedBufs[i]);
      continue;
    }
    SmallVector<Value> origins;
    for (const WindowDim &d : plan.windows[i].dims)
      origins.push_back(windowOrigin(rw, loc, d, offsets));
    Value input = op.getInputs()[i];
    if (plan.cached.test(i)) {
      CopyOp::create(
          rw,
          phaseLoc(loc, "copy of input " + Twine(i) + " into shared memory"),
          input, origins, sharedBufs[i], /*active=*/Value(),
          schedule.getVector(), CopyStagingAttr(),
          plan.windows[i].rowMultiple, inBoundsAttr(rw, plan.windows[i]));
      operands.push_back(sharedBufs[i]);
    } else {
      operands.push_back(
          tileView(rw, loc, input, origins, plan.windows[i].shape));
    }
  }
  return operands;
}

TileComputeOp ScheduledKernelBuilder::createTileCompute(
    ArrayRef<Value> offsets, ArrayRef<Value> bounds, ValueRange ins,
    ValueRange outs, ArrayRef<AffineMap> outMaps, bool accumulate) {
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
}

/// Fills the fragments with the combiner's identity.
void ScheduledKernelBuilder::emitAccumulatorFill() {
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

/// One k-step (or the whole tile, without a k-loop) accumulated into the
/// fragments.
void ScheduledKernelBuilder::emitIteration(Value kOffset, Value kBound) {
  SmallVector<Value> offsets(frame.offsets), bounds(frame.bounds);
  if (plan.kAxis) {
    offsets[*plan.kAxis] = kOffset;
    bounds[*plan.kAxis] = kBound;
  }
  SmallVector<Value> ins = stageInputs(offsets);
  createTileCompute(offsets, bounds, ins, frags, fragMaps,
                    /*accumulate=*/true);
}

/// The k-loop with `stages` buffers: pipelined copies, or under warp
/// specialization a producer warpgroup's.
void ScheduledKernelBuilder::emitPipelinedKSteps() {
  // wgmma groups stay in flight across k-steps only where nothing but
  // the staged copies writes what they read (no attached producer
  // rewrites its tile each step) and the pipeline is deep enough.
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(layout);
  bool mmaInFlight =
      stages >= 3 && mma && mma.isWarpgroup() && isAttached.none();
  std::optional<TmaLoads> tma;
  if (schedule.getTma())
    tma = buildTmaLoads(rw, op, plan, kernel);
  auto computeStep = [&](ArrayRef<Value> offsets, ArrayRef<Value> bounds,
                         ValueRange ins) {
    // The attached producers' buffers, not their outputs' views.
    SmallVector<Value> operands(ins);
    for (unsigned i = 0; i < numInputs; ++i)
      if (isAttached.test(i))
        operands[i] = attachedBufs[i];
    createTileCompute(offsets, bounds, operands, frags, fragMaps,
                      /*accumulate=*/true);
  };
  if (specialized)
    emitWarpSpecializedKLoop(rw, loc, op, plan, schedule, frame, kBegin, kEnd,
                             stageBufs, mmaInFlight, *tma,
                             options.weakenAsyncWait, computeStep);
  else
    emitPipelinedKLoop(rw, loc, op, plan, schedule, options, frame, kBegin,
                       kEnd, stageBufs, mmaInFlight, tma ? &*tma : nullptr,
                       computeStep);
}

/// Full k-steps run with a constant bound (no checks in the steady state).
/// A ragged last step either runs as a full one, when the copies' zero
/// fill makes the body yield the combiner's identity, or is peeled with
/// its own constant bound.
void ScheduledKernelBuilder::emitKSteps() {
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
    emitPeeledStep(rw, loc, steps, kEnd, [&](Value) {
      emitIteration(steps.lastOffset, steps.rest);
    });
}

/// With an accumulator: fragments filled with the identity, the attached
/// producers, the k-steps, then the epilogue.
void ScheduledKernelBuilder::emitAccumulation() {
  for (Type t : fragTypes)
    frags.push_back(AllocFragmentOp::create(
        rw, loc, t, rw.getDenseI64ArrayAttr(spatialThreads), layout));
  emitAccumulatorFill();

  // Attached producers run once per tile, before the k-loop: from
  // global memory (the anchor's shared tiles are the k-steps').
  if (!attached.empty()) {
    emitProducers(sharedBufs); // none allocated yet
    allocateSharedTiles();
  }

  // Fragments are indexed by the spatial axes, in axis order.
  SmallVector<AffineExpr> spatialDims;
  for (unsigned a : plan.spatialAxes)
    spatialDims.push_back(getAffineDimExpr(a, ctx));
  fragMaps.assign(numOutputs, AffineMap::get(numAxes, 0, spatialDims, ctx));
  if (plan.kAxis && stages > 1)
    emitPipelinedKSteps();
  else if (plan.kAxis)
    emitKSteps();
  else
    emitIteration(Value(), Value());
  KernelYieldOp::create(rw, loc, frags);
  emitFragmentEpilogue();
}

/// The epilogue: the fragments into the output tiles.
void ScheduledKernelBuilder::emitFragmentEpilogue() {
  rw.setInsertionPointToStart(epilogue);
  TileFrame eframe = buildFrame(
      rw, loc, plan, epilogue->getArguments().take_front(numTileDims));
  SmallVector<Value> spatialBounds;
  for (unsigned a : plan.spatialAxes)
    spatialBounds.push_back(eframe.bounds[a]);
  // Output maps over the spatial axes alone (d_j = j-th spatial axis).
  SmallVector<unsigned> spatialPos(numAxes, 0);
  for (auto [j, a] : llvm::enumerate(plan.spatialAxes))
    spatialPos[a] = j;
  for (unsigned o = 0; o < numOutputs; ++o)
    emitOutputStore(o, eframe, spatialBounds, spatialPos);
  KernelYieldOp::create(rw, loc, ValueRange{});
}

/// Output `o`'s fragment into its tile: the fused consumer's value, or
/// the accumulator by its layout into the output tile or a shared staging
/// tile that is then stored in coalesced rows (or by the copy engine).
void ScheduledKernelBuilder::emitOutputStore(unsigned o,
                                             const TileFrame &eframe,
                                             ArrayRef<Value> spatialBounds,
                                             ArrayRef<unsigned> spatialPos) {
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
  if (fused) {
    // The consumer's value is stored instead (and the accumulator too
    // where anything else may read it).
    Value anchorTarget;
    if (fused->keepAnchorOutput)
      anchorTarget = tileView(rw, loc, op.getOutputs()[o], origins, sizes);
    emitFusedStore(rw, loc, plan, *fused,
                   axesAttr(ctx, plan, plan.spatialAxes), spatialThreads,
                   eframe.offsets, spatialBounds, frag, anchorTarget, maps[1],
                   layout);
    return;
  }
  Type elem = cast<MemRefType>(fragTypes[o]).getElementType();
  CacheAttr staging = plan.outputCache[o];
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
      ValueRange{target}, rw.getAffineMapArrayAttr(maps), CombinerKindAttr(),
      ArrayAttr(), UnitAttr(), layout);
  {
    OpBuilder::InsertionGuard g(rw);
    Block *b = rw.createBlock(&store.getBody(), {}, {elem}, {loc});
    YieldOp::create(rw, loc, b->getArgument(0));
  }
  if (!staging)
    return;
  // With the copy engine (tma = true), one bulk tensor store of the tile
  // where it can; else the threads' coalesced rows.
  Value map;
  if (schedule.getTma()) {
    std::string why;
    map = buildTmaStoreMap(rw, op, o, cast<MemRefType>(staged.getType()),
                           staging, kernel, why);
    if (!map && options.report)
      op.emitRemark() << "output " << o
                      << " is stored by the threads, not the copy engine: "
                      << why;
  }
  // A swizzled tile is rewritten access by access: scalar reads.
  StoreTileOp::create(rw, phaseLoc(loc, "epilogue store of output " + Twine(o)),
                      staged, op.getOutputs()[o], origins, map,
                      staging.getSwizzle() ? 1 : schedule.getVector());
}

/// No accumulator: one tile compute from the inputs into the outputs,
/// after the attached producers (which may read its shared tiles).
void ScheduledKernelBuilder::emitWithoutAccumulator() {
  SmallVector<Value> ins = stageInputs(frame.offsets);
  if (!attached.empty()) {
    emitProducers(sharedBufs); // null where not cached
    for (unsigned i = 0; i < numInputs; ++i)
      if (isAttached.test(i))
        ins[i] = attachedBufs[i];
  }
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

FailureOr<KernelOp>
ScheduledKernelBuilder::build(ArrayRef<StringAttr> inlinedNames) {
  if (plan.useFragments)
    for (Value out : op.getOutputs())
      fragTypes.push_back(MemRefType::get(
          spatialTile, cast<MemRefType>(out.getType()).getElementType()));
  if (failed(resolveFusion(inlinedNames)))
    return failure();
  rw.setInsertionPoint(op);
  guardDynamicSizes();
  if (failed(createKernel()))
    return failure();

  rw.setInsertionPointToStart(body);
  ValueRange coords = body->getArguments().take_front(numTileDims);
  kBegin = body->getArgument(numTileDims);
  kEnd = body->getArgument(numTileDims + 1);
  frame = buildFrame(rw, loc, plan, coords);
  stages = plan.useFragments && plan.kAxis ? schedule.getStages() : 1;
  sharedBufs.assign(numInputs, Value());
  stageBufs.assign(numInputs, SmallVector<Value>());
  bool producersFirst = plan.useFragments && !attached.empty();
  if (!producersFirst)
    allocateSharedTiles();
  attachedBufs.assign(numInputs, Value());
  isAttached.resize(numInputs);
  for (const AttachedProducer &ap : attached)
    if (ap.anchorInput)
      isAttached.set(*ap.anchorInput);
  for (unsigned i = 0; i < numInputs; ++i)
    inputMaps.push_back(plan.windows[i].localMap);
  for (const AttachedProducer &ap : attached)
    if (ap.anchorInput)
      inputMaps[*ap.anchorInput] = ap.anchorMap;

  if (plan.useFragments)
    emitAccumulation();
  else
    emitWithoutAccumulator();

  if (fused)
    rw.eraseOp(fused->consumer);
  rw.eraseOp(op);
  eraseAttachedProducers(rw, attached);
  return kernel;
}

/// A window over an axis indexing a dimension alone lies inside it where
/// the tile divides the extent (planTiling) and the extent fits the
/// dimension: the copies of an axis longer than its dimension, read only
/// where a guard keeps it inside (Concat's first input), are masked.
static void maskAxesPastDimensions(ComputeOp op, TilingPlan &plan) {
  for (auto [i, window] : llvm::enumerate(plan.windows)) {
    auto type = cast<MemRefType>(op.getInputs()[i].getType());
    for (auto [r, expr] : llvm::enumerate(op.getInputMap(i).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && r < window.inBounds.size() && !type.isDynamicDim(r) &&
          plan.extents[dim.getPosition()] > type.getDimSize(r))
        window.inBounds[r] = false;
    }
  }
}

FailureOr<KernelOp> ext::applySchedule(RewriterBase &rw, ComputeOp op,
                                       const ApplyScheduleOptions &options) {
  if (!op.getScheduleAttr())
    return op.emitOpError("has no schedule to apply");
  if (failed(refuseIndirectReads(op)))
    return failure();
  // Producers the schedule inlines become part of the compute first (and
  // of the producers it attaches, below).
  SmallVector<StringAttr> inlinedNames(
      op.getScheduleAttr().getComputeInline());
  if (failed(checkInlinedAreRead(op)))
    return failure();
  FailureOr<ComputeOp> inlined = inlineProducers(rw, op);
  if (failed(inlined))
    return failure();
  op = *inlined;
  ScheduleAttr schedule = op.getScheduleAttr();
  FailureOr<TilingPlan> planOr = planTiling(op, schedule);
  if (failed(planOr))
    return failure();
  // mma = auto on sm_90a lays out the operand caches for wgmma (then plans
  // again with them).
  if (ScheduleAttr swizzled =
          swizzleCachesForAutoWgmma(op, schedule, *planOr, options);
      swizzled != schedule) {
    schedule = swizzled;
    planOr = planTiling(op, schedule);
    if (failed(planOr))
      return failure();
  }
  TilingPlan &plan = *planOr;
  maskAxesPastDimensions(op, plan);

  // Absent means cyclic: IR of schedules without a layout stays as it was.
  FailureOr<FragmentLayoutAttrInterface> layout =
      resolveLayout(op, schedule, plan, options);
  if (failed(layout))
    return failure();
  if (schedule.getTma() && failed(checkTmaLoads(op, plan, schedule, options)))
    return failure();
  FailureOr<KernelOp> kernel =
      !schedule.getOnline().empty()
          ? applyOnlineSoftmax(rw, op, schedule, plan, *layout, inlinedNames,
                               options)
          : ScheduledKernelBuilder(rw, op, schedule, plan, *layout, options)
                .build(inlinedNames);
  // fast_math = false: the launches made from the kernel stay precise.
  if (succeeded(kernel) && !schedule.getFastMath())
    (*kernel)->setAttr(kPreciseMathAttrName, rw.getUnitAttr());
  // An online-softmax key step with its products fused into FMAs takes 138
  // registers under ptxas 13 (d 128, sm_90a) instead of 128: one CTA per SM
  // instead of the two its tiles are chosen for. Without launch bounds to
  // hold ptxas to 128, its multiply-adds stay unfused.
  else if (succeeded(kernel) && !schedule.getOnline().empty())
    (*kernel)->setAttr(kNoContractAttrName, rw.getUnitAttr());
  return kernel;
}

namespace {

struct ExtApplySchedulePass
    : ext::impl::ExtApplyScheduleBase<ExtApplySchedulePass> {
  using Base::Base;
  // `auto` weighs every registered decomposition, plugins' too: their
  // dialects must be loaded before the pass runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTileDecompositionDialects(registry);
  }
  void runOnOperation() override {
    SmallVector<ComputeOp> scheduled;
    getOperation()->walk([&](ComputeOp op) {
      if (op.getScheduleAttr())
        scheduled.push_back(op);
    });
    // Without a chip the SM count is unknown: only the decompositions that
    // need it fail, saying so.
    FailureOr<DeviceFacts> device =
        resolveDevice(getOperation(), "ext-apply-schedule", chip, sms);
    if (failed(device))
      return signalPassFailure();
    ApplyScheduleOptions options;
    options.device = *device;
    options.report = report;
    options.weakenAsyncWait = weakenAsyncWait;
    options.asyncCopies = device->chip && device->chip->hasAsyncCopy;
    IRRewriter rewriter(&getContext());
    for (ComputeOp op : scheduled)
      if (failed(applySchedule(rewriter, op, options)))
        return signalPassFailure();
  }
};

} // namespace
