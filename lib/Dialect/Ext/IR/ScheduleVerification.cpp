//===- ScheduleVerification.cpp - checks of a compute's schedule ----------===//
//
// Whether a #ext.schedule fits the ext.compute it is attached to, checked by
// the compute's verifier so that ext-apply-schedule may assume it: the tile
// sizes, thread counts and block bindings against the axes, the layout's
// thread distribution, the cached operands and pipelined stages, and an
// `mma` schedule's shape, operands and types.
//
//===----------------------------------------------------------------------===//

#include "ScheduleVerification.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;

/// The most points a tile may cover (see verifyScheduleFor).
static constexpr int64_t kMaxTilePoints = int64_t(1) << 48;

/// Checks an mma schedule: the GEMM shape of the compute (two spatial axes,
/// one reduce axis), cached inputs, and, for a named instruction, the tile
/// against warps x instruction shape and the inputs' types.
static LogicalResult verifyMmaSchedule(ComputeOp op, ScheduleAttr schedule,
                                       function_ref<InFlightDiagnostic()> err) {
  MmaLayoutAttr mma = schedule.getMma();
  SmallVector<AxisAttr> axes = op.getAxisList();
  SmallVector<unsigned> spatial, reduce;
  for (auto [a, axis] : llvm::enumerate(axes))
    (axis.isSpatial() ? spatial : reduce).push_back(a);
  if (spatial.size() != 2 || reduce.size() != 1)
    return err() << "mma needs two spatial axes (M, N) and one reduce axis "
                    "(K); the compute has "
                 << spatial.size() << " and " << reduce.size();
  if (schedule.getThreads()[reduce[0]] != 1)
    return err() << "mma computes the reduce axis in the instruction; its "
                    "threads must be 1";
  llvm::SmallBitVector cached(op.getInputs().size());
  for (CacheAttr c : schedule.getCache())
    if (c.getOperand() >= 0 &&
        c.getOperand() < static_cast<int64_t>(cached.size()))
      cached.set(c.getOperand());
  if (!cached.all())
    return err() << "mma reads its operands from shared memory: cache every "
                    "input";
  if (mma.getShape() == MmaShape::automatic)
    return success();
  int64_t tileK = schedule.getTile()[reduce[0]];
  if (tileK % mma.getK() != 0)
    return err() << "tile size " << tileK << " of reduce axis '"
                 << axes[reduce[0]].getName()
                 << "' is not a multiple of the instruction's K = "
                 << mma.getK() << " (" << mma << ")";
  // A factor computed from its inputs (a dequantized weight) gives the
  // instruction its value, not the packed input's element.
  if (std::optional<SmallVector<Type>> types = getProductOperandTypes(op)) {
    for (Type elem : *types) {
      if (!mma.takesInputType(elem))
        return err() << mma << " takes " << mma.inputTypesText()
                     << " inputs, not " << elem;
    }
    Type acc = cast<MemRefType>(op.getOutputs()[0].getType()).getElementType();
    if (!acc.isF32())
      return err() << mma << " accumulates in f32, not " << acc;
  }
  return success();
}

LogicalResult ext::detail::verifyScheduleFor(ComputeOp op,
                                             ScheduleAttr schedule) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  auto err = [&]() { return op.emitOpError() << "schedule: "; };
  if (schedule.getTile().size() != axes.size())
    return err() << "has " << schedule.getTile().size()
                 << " tile sizes but the compute has " << axes.size()
                 << " axes";
  if (schedule.getThreads().size() != axes.size())
    return err() << "has " << schedule.getThreads().size()
                 << " thread counts but the compute has " << axes.size()
                 << " axes";

  llvm::SmallBitVector blocked(axes.size());
  for (StringAttr nameAttr : schedule.getBlocks()) {
    StringRef name = nameAttr.getValue();
    std::optional<unsigned> pos = op.getAxisPosition(name);
    if (!pos)
      return err() << "binds axis '" << name
                   << "' to blocks, but the compute has no such axis";
    if (blocked.test(*pos))
      return err() << "binds axis '" << name << "' to blocks twice";
    blocked.set(*pos);
  }

  TileDecompositionAttrInterface decomposition =
      schedule.getDecompositionOrDefault();
  int64_t numThreads = 1;
  unsigned threadReduceAxes = 0, splitReduceAxes = 0;
  // A dynamic extent: a spatial axis bound to blocks, whose tile count the
  // host computes at launch, or the reduce axis the k-loop steps through,
  // whose step count it computes; and a decomposition that plans from them
  // there.
  for (auto [a, axis] : llvm::enumerate(axes)) {
    if (!axis.isDynamic())
      continue;
    if (axis.isReduce() && schedule.getThreads()[a] > 1)
      return err() << "reduce axis '" << axis.getName()
                   << "' has a dynamic extent, so the k-loop steps through "
                      "it: it cannot run on "
                   << schedule.getThreads()[a]
                   << " threads (a thread-bound reduction covers its axis "
                      "in one tile)";
    if (axis.isSpatial() && !blocked.test(a))
      return err() << "axis '" << axis.getName()
                   << "' has a dynamic extent, so its tiles must index the "
                      "grid: bind it to blocks";
    if (!decomposition.plansAtLaunch())
      return err() << "axis '" << axis.getName()
                   << "' has a dynamic extent; decomposition "
                   << decomposition
                   << " plans its grid only from static extents";
  }
  for (auto [a, axis] : llvm::enumerate(axes)) {
    // A tile may be larger than its axis: the points past the extent are
    // masked like a ragged edge tile's (zero-filled copies, guarded stores).
    int64_t tile = schedule.getTile()[a], threads = schedule.getThreads()[a];
    // Saturates: thread counts come from the input.
    numThreads = llvm::checkedMul(numThreads, threads).value_or(INT64_MAX);
    if (axis.isSpatial()) {
      if (tile < axis.getExtent() && !blocked.test(a))
        return err() << "spatial axis '" << axis.getName() << "' is tiled ("
                     << tile << " of " << axis.getExtent()
                     << ") but not bound to blocks";
      if (tile % threads != 0)
        return err() << "tile size " << tile << " of axis '" << axis.getName()
                     << "' is not a multiple of its " << threads << " threads";
      continue;
    }
    if (blocked.test(a) && !decomposition.splitsReduction())
      return err() << "binds reduce axis '" << axis.getName()
                   << "' to blocks, but decomposition " << decomposition
                   << " does not split the reduction";
    if (threads > 1) {
      ++threadReduceAxes;
      // A thread-bound reduction is one tree reduction over the whole axis:
      // no k-loop steps through it, and no tile is padded past it.
      if (tile != axis.getExtent())
        return err() << "reduce axis '" << axis.getName() << "' runs on "
                     << threads << " threads, so its tile must be exactly its "
                     << "extent (a tree reduction over the whole axis in one "
                     << "step): tile " << tile << ", extent "
                     << axis.getExtent() << "; use tile "
                     << axis.getExtent();
      if (!llvm::isPowerOf2_64(threads))
        return err() << "reduce axis '" << axis.getName() << "' runs on "
                     << threads
                     << " threads; a tree reduction needs a power "
                        "of two";
    }
    // Iterated: a reduce axis whose tile is not its extent (a larger tile is
    // one zero-filled step).
    if (tile != axis.getExtent())
      ++splitReduceAxes;
  }
  if (threadReduceAxes > 1)
    return err() << "binds " << threadReduceAxes
                 << " reduce axes to threads; at most one is supported";
  if (splitReduceAxes > 1)
    return err() << "tiles " << splitReduceAxes
                 << " reduce axes below their extents; only one reduce axis "
                    "can be iterated over";
  if (numThreads == INT64_MAX)
    return err() << "asks for more than 2^63 threads per block; a block "
                    "allows at most 1024";
  if (numThreads > 1024)
    return err() << "asks for " << numThreads
                 << " threads per block; a block allows at most 1024";

  // Every buffer the tile becomes (shared copies, the per-thread
  // fragment, a staged output) has at most its points: bounding them keeps
  // every size computed from them (bytes, their sums) far from overflowing,
  // and such a tile is beyond any GPU's memory.
  int64_t points = 1;
  for (int64_t tile : schedule.getTile())
    points = llvm::checkedMul(points, tile).value_or(INT64_MAX);
  if (points > kMaxTilePoints) {
    InFlightDiagnostic d = err() << "tile [";
    llvm::interleaveComma(schedule.getTile(), d);
    return d << "] covers "
             << (points == INT64_MAX ? std::string("more than 2^63")
                                     : std::to_string(points))
             << " points; a tile may cover at most 2^48 (no GPU holds that "
                "many elements): use a smaller tile";
  }

  // An online-softmax schedule's fragment is its accumulator, rows x values:
  // the spatial axes of a tile of 1 (batch, heads) are not in it, and its
  // operands are the kernel's own buffers (OnlineSoftmax.cpp checks them).
  bool online = !schedule.getOnline().empty();
  SmallVector<int64_t> spatialTile, spatialThreads;
  for (auto [a, axis] : llvm::enumerate(axes))
    if (axis.isSpatial() && !(online && schedule.getTile()[a] == 1)) {
      spatialTile.push_back(schedule.getTile()[a]);
      spatialThreads.push_back(schedule.getThreads()[a]);
    }
  FragmentLayoutAttrInterface layout = schedule.getLayoutOrDefault();
  if (MmaLayoutAttr mma = schedule.getMma()) {
    if (!online && failed(verifyMmaSchedule(op, schedule, err)))
      return failure();
    // `auto` is resolved (and checked) by ext-apply-schedule.
    layout = mma.getShape() == MmaShape::automatic
                 ? FragmentLayoutAttrInterface()
                 : MmaLayoutAttr::get(op.getContext(), mma.getShape(),
                                      schedule.getWarps());
  }
  if (layout &&
      failed(layout.verifyDistribution(err, spatialTile, spatialThreads)))
    return failure();

  // Operands number the inputs, then the outputs.
  int64_t numInputs = op.getInputs().size();
  int64_t numOperands = numInputs + op.getOutputs().size();
  llvm::SmallBitVector cached(numOperands);
  for (CacheAttr cache : schedule.getCache()) {
    int64_t operand = cache.getOperand();
    if (operand < 0 || operand >= numOperands)
      return err() << "caches operand #" << operand << ", but the compute has "
                   << numInputs << " inputs and " << op.getOutputs().size()
                   << " outputs";
    bool isOutput = operand >= numInputs;
    std::string name = (isOutput ? "output #" + Twine(operand - numInputs)
                                 : "input #" + Twine(operand))
                           .str();
    if (cached.test(operand))
      return err() << "caches " << name << " twice";
    cached.set(operand);
    if (isOutput && !op.hasReduceAxes())
      return err() << "caches " << name
                   << ", but only a compute with reduce axes accumulates "
                      "its outputs in an epilogue that can stage them";
    Value value = isOutput ? op.getOutputs()[operand - numInputs]
                           : op.getInputs()[operand];
    int64_t rank = cast<MemRefType>(value.getType()).getRank();
    for (StorageAlignAttr align : cache.getAlign())
      if (align.getDim() >= rank)
        return err() << "storage_align of " << name << " names dimension "
                     << align.getDim() << " of a rank-" << rank << " operand";
  }
  if (schedule.getStages() > 1) {
    if (splitReduceAxes == 0)
      return err() << "stages = " << schedule.getStages()
                   << " pipelines the k-loop, but no reduce axis is tiled "
                      "below its extent (there is no k-loop)";
    // An online-softmax kernel stages the windows that move with the keys
    // itself (OnlineSoftmax.cpp).
    if (!online && (cached.find_first() < 0 || cached.find_first() >= numInputs))
      return err() << "stages = " << schedule.getStages()
                   << " multi-buffers cached inputs, but the schedule "
                      "caches none";
  }
  return success();
}
