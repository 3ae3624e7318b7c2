//===- TileCompute.cpp - ext.tile_compute to per-thread code --------------===//
//
// ext.tile_compute point by point: each thread runs the body at the points
// its fragment layout gives it, through the reduce loops, and for a reduce
// axis bound to threads combines the partial values across them (warp
// shuffles, or a tree in workgroup memory). An accumulation into fragments
// goes to its layout's strategy (TileAccumulationAttrInterface) through an
// AccumulationContext.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "TileLoweringUtils.h"

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/GuardedReads.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

namespace {

/// Coordinates of linear thread `tid` in a thread grid, last axis fastest.
SmallVector<Value> threadCoords(OpBuilder &b, Location loc, Value tid,
                                ArrayRef<int64_t> threads) {
  SmallVector<Value> coords(threads.size());
  Value rest = tid;
  for (int a = threads.size() - 1; a >= 0; --a) {
    if (threads[a] == 1) {
      coords[a] = constIndex(b, loc, 0);
      continue;
    }
    Value h = constIndex(b, loc, threads[a]);
    coords[a] = arith::RemUIOp::create(b, loc, rest, h);
    rest = arith::DivUIOp::create(b, loc, rest, h);
  }
  return coords;
}

/// For an element-wise tile compute into one tile with no bounds (every
/// point valid) and unrolled points, in shared memory (the epilogue's
/// staging tile) or in global memory (an output tile at its origin): the
/// spatial axis whose runs of a thread's consecutive points are
/// consecutive elements of the tile's rows, and how many of them one
/// aligned vector store (at most 16 bytes) takes; a width of 1 when there
/// is none.
std::pair<unsigned, int64_t>
tileStoreVector(TileComputeOp op, FragmentLayoutAttrInterface layout,
                ArrayRef<unsigned> spatial, ArrayRef<int64_t> spatialShape,
                ArrayRef<int64_t> spatialThreads,
                ArrayRef<int64_t> localCounts, bool unrollPoints,
                bool intoFragment, function_ref<bool(unsigned)> isFullBound) {
  std::pair<unsigned, int64_t> none = {0, 1};
  // A fragment's storage is a thread's registers: no vector stores.
  if (op.getOutputs().size() != 1 || !unrollPoints || intoFragment ||
      !llvm::all_of(spatial, isFullBound))
    return none;
  Value out = op.getOutputs()[0];
  auto type = cast<MemRefType>(out.getType());
  bool shared = gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
  if (type.getRank() == 0 || (!shared && type.getMemorySpace()))
    return none;
  if (auto alloc = out.getDefiningOp<AllocSharedOp>();
      alloc && alloc.getSwizzle())
    return none; // rewritten access by access
  AffineMap map = op.getMaps().back();
  auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!inner || llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) {
        return e.isFunctionOfDim(inner.getPosition());
      }))
    return none;
  unsigned axis = inner.getPosition();
  auto dim = llvm::find(spatial, axis);
  if (dim == spatial.end())
    return none;
  int64_t run =
      layout.getContiguity(dim - spatial.begin(), spatialShape, spatialThreads);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return none;
  int64_t maxWidth = std::min<int64_t>(
      localCounts[axis], 16 / elementBytes(type.getElementType()));
  if (!shared)
    offset = globalTileOffset(out, std::max<int64_t>(1, maxWidth));
  return {axis, runVectorWidth(run, maxWidth, strides, offset)};
}

/// Into a shared tile other threads read next (a producer's region under
/// compute_at): a barrier after it, and one at the end of the loop around
/// it before the next iteration overwrites it. A store_tile right after
/// brings its own.
void barrierAfterSharedWrites(LaunchState &state, TileComputeOp op) {
  bool writesShared = llvm::any_of(op.getOutputs(), [&](Value v) {
    return !state.isFragment(v) &&
           gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
               cast<MemRefType>(v.getType()));
  });
  if (!writesShared || isa_and_nonnull<StoreTileOp>(op->getNextNode()))
    return;
  IRRewriter &rw = state.getRewriter();
  rw.setInsertionPointAfter(op);
  state.insertBarrier(op.getLoc());
  if (auto loop = op->getParentOfType<scf::ForOp>();
      loop && state.getLaunch()->isProperAncestor(loop))
    state.addCopyLoop(loop);
}

/// A reduction of an MMA fragment along its columns: one spatial axis (the
/// rows) and one reduce axis (the columns), the op's #ext.mma layout
/// distributing both as the fragment does (TileComputeOp's docs).
bool isFragmentReduction(TileComputeOp op) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  return isa_and_nonnull<MmaLayoutAttr>(op.getLayoutAttr()) &&
         axes.size() == 2 && axes[0].isSpatial() && axes[1].isReduce();
}

/// Whether `op` (of an #ext.mma layout) reads or writes, through `map`, a
/// fragment of that layout's slice: per-row values, indexed by the op's
/// row axis (its first) alone, with as many rows and threads.
static bool isRowSliceAccess(TileComputeOp op, const FragmentInfo &info,
                             AffineMap map) {
  auto slice = dyn_cast<SliceLayoutAttr>(info.layout);
  // Point by point (element-wise, or a fragment reduction): not through an
  // MMA accumulation, whose operands are shared tiles.
  bool pointwise = !op.hasReduceAxes() || isFragmentReduction(op);
  if (!slice || !pointwise || slice.getParent() != op.getLayoutAttr() ||
      map.getNumResults() != 1 || info.shape.size() != 1)
    return false;
  auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
  SmallVector<AxisAttr> axes = op.getAxisList();
  return dim && dim.getPosition() == 0 && axes[0].isSpatial() &&
         info.shape[0] == axes[0].getExtent() &&
         info.threads[0] == op.getNumThreads();
}

LogicalResult checkFragmentAccess(TileComputeOp op, const FragmentInfo &info,
                                  AffineMap map) {
  bool rowsAndColumns = isFragmentReduction(op);
  if (isRowSliceAccess(op, info, map))
    return success();
  if (info.layout != op.getLayoutOrDefault())
    return op.emitOpError() << "accesses a fragment of layout " << info.layout
                            << " with layout " << op.getLayoutOrDefault()
                            << "; a fragment's threads hold its points by "
                               "its own layout";
  SmallVector<AxisAttr> axes = op.getAxisList();
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    unsigned a = dim ? dim.getPosition() : 0;
    if (!dim || (axes[a].isReduce() && !rowsAndColumns) ||
        op.getThreads()[a] != info.threads[d] ||
        info.shape[d] != axes[a].getExtent())
      return op.emitOpError()
             << "accesses a fragment through dimension #" << d
             << " in a way its thread distribution does not match; a "
                "fragment must be indexed by spatial axes with the same "
                "tile size and threads";
  }
  return success();
}

/// What a layout's accumulation strategy sees of the lowering of one op.
class AccumulationContext : public TileAccumulationContext {
public:
  AccumulationContext(LaunchState &state, Value tid,
                      ArrayRef<Value> threadCoords, ArrayRef<Value> bounds,
                      function_ref<void()> pointLoops)
      : state(state), tid(tid), threadCoords(threadCoords), bounds(bounds),
        pointLoops(pointLoops) {}
  RewriterBase &getRewriter() override { return state.getRewriter(); }
  Value getThreadId() override { return tid; }
  ArrayRef<Value> getBounds() override { return bounds; }
  Value getFragmentStorage(Value value) override {
    const FragmentInfo *info = state.lookupFragment(value);
    return info ? info->storage : Value();
  }
  const std::optional<ChipInfo> &getChip() override {
    return state.getChip();
  }
  LogicalResult emitElementwise(TileComputeOp op) override {
    if (pointLoops) {
      pointLoops();
      return success();
    }
    return emitOuterProduct(state, op, threadCoords, bounds);
  }

private:
  LaunchState &state;
  Value tid;
  ArrayRef<Value> threadCoords, bounds;
  /// Set when a thread has too many points to unroll: loops over them.
  function_ref<void()> pointLoops;
};

/// The lowering of one ext.tile_compute to its threads' code, in one of its
/// forms (a fragment's row reduction, an element-wise map, an accumulation
/// into fragments, a reduction per point), with what they share: the
/// thread's coordinates and bounds, the point being emitted (`points`, and
/// its index in the thread's slice, `locals`), the thread's spatial points.
class TileComputeLowering {
public:
  TileComputeLowering(LaunchState &state, TileComputeOp op)
      : state(state), op(op), rw(state.getRewriter()), loc(op.getLoc()),
        axes(op.getAxisList()), threads(op.getThreads()),
        numAxes(axes.size()), numThreads(op.getNumThreads()),
        numInputs(op.getInputs().size()), numOutputs(op.getOutputs().size()),
        maps(op.getMaps()), points(numAxes), locals(numAxes) {}

  LogicalResult lower();

private:
  LogicalResult checkThreads(int64_t blockThreads);
  bool isFullBound(unsigned a) const {
    std::optional<int64_t> c = getConstantIntValue(bounds[a]);
    return c && *c == axes[a].getExtent();
  }
  /// The body at the current point. Inputs are read where the body reads
  /// them: under its branch, for a guarded read.
  SmallVector<Value> emitBody();
  /// Output `o`'s storage and indices at the current point.
  std::pair<Value, SmallVector<Value>> outputRef(unsigned o);
  /// outputs[p] = combine(outputs[p], values) at the current point.
  void accumulateIntoOutputs(ValueRange values);
  void underIf(Value cond, function_ref<void()> body);
  void planSpatialPoints();
  /// Emits the spatial loops (l over each axis' points of this thread);
  /// `inner` runs inside with `valid` (are all points inside the bounds).
  void spatialLoops(function_ref<void(Value valid)> inner) {
    emitSpatialAxis(0, inner);
  }
  void emitSpatialAxis(unsigned s, function_ref<void(Value valid)> inner);
  void setSpatialPoints();

  LogicalResult lowerFragmentReduction();
  SmallVector<Value> foldRowPoints(MmaLayoutAttr mma, int64_t lr,
                                   ArrayRef<Type> types, Value &row);
  LogicalResult storeReducedRow(ArrayRef<Value> accs, Value row, Value leader);
  void lowerElementwise();
  void storeVectorRun(unsigned storeAxis, int64_t storeWidth);
  void loopAccumulation();
  LogicalResult accumulateWithStrategy();
  void reduceAtPoint(Value valid);

  LaunchState &state;
  TileComputeOp op;
  IRRewriter &rw;
  Location loc;
  SmallVector<AxisAttr> axes;
  ArrayRef<int64_t> threads;
  unsigned numAxes;
  int64_t numThreads;
  unsigned numInputs, numOutputs;
  SmallVector<AffineMap> maps;
  Value tid;
  std::optional<unsigned> threadReduceAxis;
  /// The thread's coordinates in the op's thread grid, and the bounds.
  SmallVector<Value> t, bounds;
  SmallVector<Value> points, locals;

  // The thread's spatial points (planSpatialPoints).
  SmallVector<unsigned> spatial, reduce;
  FragmentLayoutAttrInterface layout;
  SmallVector<int64_t> spatialShape, spatialThreads;
  SmallVector<Value> spatialCoords;
  /// How many points of each spatial axis a thread holds, by its layout.
  SmallVector<int64_t> localCounts;
  /// A thread's points are unrolled when there are few of them, so that a
  /// fragment is indexed by constants and lives in registers.
  bool unrollPoints = true;
  bool allFragmentOutputs = false;
};

} // namespace

LogicalResult TileComputeLowering::checkThreads(int64_t blockThreads) {
  if (numThreads > blockThreads)
    return op.emitOpError() << "runs on " << numThreads
                            << " threads, but the block has " << blockThreads;

  for (auto [i, operand] :
       llvm::enumerate(op->getOperands().drop_front(op.getBounds().size()))) {
    if (const FragmentInfo *info = state.lookupFragment(operand);
        info && failed(checkFragmentAccess(op, *info, op.getMaps()[i])))
      return failure();
  }

  for (unsigned a = 0; a < numAxes; ++a)
    if (axes[a].isReduce() && threads[a] > 1)
      threadReduceAxis = a;
  if (threadReduceAxis && numThreads != blockThreads)
    return op.emitOpError()
           << "combines across " << numThreads << " threads of a "
           << blockThreads
           << "-thread block; a reduction across threads must use the whole "
              "block (its barriers cannot sit under thread-dependent control "
              "flow)";
  return success();
}

SmallVector<Value> TileComputeLowering::emitBody() {
  return inlineComputeBody(
      rw, op.getBody(),
      [&](unsigned i) -> Value {
        Value in = op.getInputs()[i];
        return memref::LoadOp::create(
            rw, loc, state.storageOf(in),
            accessIndices(rw, loc, maps[i], points, locals,
                          state.isFragment(in)));
      },
      [&](StringRef name) { return points[*op.getAxisPosition(name)]; });
}

std::pair<Value, SmallVector<Value>>
TileComputeLowering::outputRef(unsigned o) {
  Value out = op.getOutputs()[o];
  return std::make_pair(state.storageOf(out),
                        accessIndices(rw, loc, maps[numInputs + o], points,
                                      locals, state.isFragment(out)));
}

void TileComputeLowering::accumulateIntoOutputs(ValueRange values) {
  SmallVector<Value> accs;
  SmallVector<std::pair<Value, SmallVector<Value>>> refs;
  for (unsigned o = 0; o < numOutputs; ++o) {
    refs.push_back(outputRef(o));
    accs.push_back(memref::LoadOp::create(rw, loc, refs.back().first,
                                          refs.back().second));
  }
  SmallVector<Value> combined = combineAccumulators(
      rw, loc, *op.getCombiner(), op.getReducer(), accs, values);
  for (unsigned o = 0; o < numOutputs; ++o)
    memref::StoreOp::create(rw, loc, combined[o], refs[o].first,
                            refs[o].second);
}

void TileComputeLowering::underIf(Value cond, function_ref<void()> body) {
  if (auto c = getConstantIntValue(cond); c && *c == 1)
    return body();
  auto ifOp = scf::IfOp::create(rw, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

LogicalResult TileComputeLowering::lower() {
  tid = state.getThreadIdAt(op);
  int64_t blockThreads = state.getThreadsAt(op);
  if (failed(checkThreads(blockThreads)))
    return failure();

  rw.setInsertionPoint(op);
  // Threads beyond the op's thread grid idle (no barrier inside: see above).
  OpBuilder::InsertionGuard guard(rw);
  if (numThreads < blockThreads) {
    Value inGrid = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult,
                                         tid, constIndex(rw, loc, numThreads));
    auto ifOp = scf::IfOp::create(rw, loc, inGrid, /*withElse=*/false);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  t = threadCoords(rw, loc, tid, threads);
  for (unsigned a = 0; a < numAxes; ++a)
    bounds.push_back(op.getBounds().empty()
                         ? constIndex(rw, loc, axes[a].getExtent())
                         : op.getBounds()[a]);

  if (isFragmentReduction(op)) {
    if (failed(lowerFragmentReduction()))
      return failure();
    barrierAfterSharedWrites(state, op);
    return success();
  }

  planSpatialPoints();
  if (!op.hasReduceAxes()) {
    lowerElementwise();
  } else if (op.getAccumulate() && allFragmentOutputs && !threadReduceAxis) {
    // A guarded read stays under its branch, point by point: the layouts'
    // strategies load each step's inputs for all points up front.
    if (hasGuardedReads(op.getBody())) {
      loopAccumulation();
      return success();
    }
    if (failed(accumulateWithStrategy()))
      return failure();
  } else {
    spatialLoops([&](Value valid) { reduceAtPoint(valid); });
  }

  barrierAfterSharedWrites(state, op);
  return success();
}

/// Each thread folds its own points of a row (unrolled: the fragment stays
/// in registers), then the lanes that hold the row's other columns fold
/// theirs (xor shuffles: the 4 lanes of a quad for NVIDIA's MMAs, the N
/// lanes of an MFMA row), and the row's first lane writes it.
LogicalResult TileComputeLowering::lowerFragmentReduction() {
  auto mma = cast<MmaLayoutAttr>(op.getLayoutAttr());
  SmallVector<int64_t> shape{axes[0].getExtent(), axes[1].getExtent()};
  SmallVector<int64_t> thr{threads[0], threads[1]};
  SmallVector<int64_t> local = mma.getLocalShape(shape, thr);
  int64_t columnLanes = mma.isNvidia() ? 4 : mma.getN();
  if (mma.getWarps().size() != 2 || mma.getWarps()[1] != 1)
    return op.emitOpError()
           << "reduces a fragment of " << mma
           << " along its columns; its rows must each be in one warp "
              "(warps = [WM, 1])";
  SmallVector<Type> types;
  for (Value out : op.getOutputs())
    types.push_back(cast<MemRefType>(out.getType()).getElementType());
  if (llvm::any_of(types,
                   [](Type t) { return !t.isF32() && !t.isInteger(32); }))
    return op.emitOpError()
           << "reduces a fragment across lanes, which shuffles 32-bit "
              "values only";
  CombinerKind kind = *op.getCombiner();
  Value lane = arith::RemUIOp::create(rw, loc, tid,
                                      constIndex(rw, loc, mma.getWarpSize()));
  Value leader = arith::CmpIOp::create(
      rw, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(rw, loc, lane, constIndex(rw, loc, columnLanes)),
      constIndex(rw, loc, 0));
  Value width = arith::ConstantIntOp::create(rw, loc, mma.getWarpSize(), 32);
  for (int64_t lr = 0; lr < local[0]; ++lr) {
    Value row;
    SmallVector<Value> accs = foldRowPoints(mma, lr, types, row);
    for (int64_t s = 1; s < columnLanes; s *= 2)
      accs = combineWithLane(rw, loc, kind, op.getReducer(), accs, s, width);
    if (failed(storeReducedRow(accs, row, leader)))
      return failure();
  }
  return success();
}

/// The combined value of this thread's points of its local row `lr` (its
/// fragment row's point index in `row`), the points past the bounds left
/// out.
SmallVector<Value> TileComputeLowering::foldRowPoints(MmaLayoutAttr mma,
                                                      int64_t lr,
                                                      ArrayRef<Type> types,
                                                      Value &row) {
  SmallVector<int64_t> shape{axes[0].getExtent(), axes[1].getExtent()};
  SmallVector<int64_t> thr{threads[0], threads[1]};
  SmallVector<Value> coords{t[0], t[1]};
  SmallVector<int64_t> local = mma.getLocalShape(shape, thr);
  CombinerKind kind = *op.getCombiner();
  SmallVector<Value> accs;
  for (auto [o, type] : llvm::enumerate(types)) {
    TypedAttr id = op.hasCustomReducer()
                       ? cast<TypedAttr>((*op.getIdentity())[o])
                       : getCombinerIdentity(kind, type);
    accs.push_back(arith::ConstantOp::create(rw, loc, type, id));
  }
  for (int64_t lj = 0; lj < local[1]; ++lj) {
    locals[0] = constIndex(rw, loc, lr);
    locals[1] = constIndex(rw, loc, lj);
    SmallVector<Value> pts = mma.emitPointIndices(rw, loc, shape, thr, coords,
                                                  {locals[0], locals[1]});
    points[0] = pts[0];
    points[1] = pts[1];
    row = pts[0];
    SmallVector<Value> combined =
        combineAccumulators(rw, loc, kind, op.getReducer(), accs, emitBody());
    if (isFullBound(1)) {
      accs = combined;
      continue;
    }
    Value in = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult,
                                     pts[1], bounds[1]);
    for (unsigned o = 0; o < numOutputs; ++o)
      accs[o] = arith::SelectOp::create(rw, loc, in, combined[o], accs[o]);
  }
  return accs;
}

/// Every lane of the row holds the combined value `accs`: each writes its
/// copy into a fragment (a row slice), the first lane (`leader`) into
/// memory.
LogicalResult TileComputeLowering::storeReducedRow(ArrayRef<Value> accs,
                                                   Value row, Value leader) {
  bool intoFragments = llvm::all_of(
      op.getOutputs(), [&](Value v) { return state.isFragment(v); });
  if (!intoFragments && llvm::any_of(op.getOutputs(), [&](Value v) {
        return state.isFragment(v);
      }))
    return op.emitOpError()
           << "reduces a fragment into fragments and memory at once; "
              "give each its own reduction";
  Value write = intoFragments
                    ? arith::ConstantIntOp::create(rw, loc, 1, 1).getResult()
                    : leader;
  if (!isFullBound(0))
    write = arith::AndIOp::create(
        rw, loc, write,
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, row,
                              bounds[0]));
  auto ifOp = scf::IfOp::create(rw, loc, write, /*withElse=*/false);
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  SmallVector<Value> results(accs);
  SmallVector<std::pair<Value, SmallVector<Value>>> refs;
  for (unsigned o = 0; o < numOutputs; ++o)
    refs.push_back(outputRef(o));
  if (op.getAccumulate()) {
    SmallVector<Value> old;
    for (auto &[storage, idx] : refs)
      old.push_back(memref::LoadOp::create(rw, loc, storage, idx));
    results = combineAccumulators(rw, loc, *op.getCombiner(), op.getReducer(),
                                  old, accs);
  }
  for (unsigned o = 0; o < numOutputs; ++o)
    memref::StoreOp::create(rw, loc, results[o], refs[o].first,
                            refs[o].second);
  return success();
}

void TileComputeLowering::planSpatialPoints() {
  for (unsigned a = 0; a < numAxes; ++a)
    (axes[a].isSpatial() ? spatial : reduce).push_back(a);
  layout = op.getLayoutOrDefault();
  for (unsigned a : spatial) {
    spatialShape.push_back(axes[a].getExtent());
    spatialThreads.push_back(threads[a]);
    spatialCoords.push_back(t[a]);
  }
  localCounts.assign(numAxes, 1);
  for (auto [s, n] :
       llvm::enumerate(layout.getLocalShape(spatialShape, spatialThreads)))
    localCounts[spatial[s]] = n;
  int64_t pointsPerThread = 1;
  for (unsigned a : spatial)
    pointsPerThread *= localCounts[a];
  unrollPoints = pointsPerThread <= 256;
  allFragmentOutputs = llvm::all_of(
      op.getOutputs(), [&](Value v) { return state.isFragment(v); });
}

/// `points` of the spatial axes from `locals`, by the layout.
void TileComputeLowering::setSpatialPoints() {
  SmallVector<Value> spatialLocals;
  for (unsigned a : spatial)
    spatialLocals.push_back(locals[a]);
  SmallVector<Value> pts =
      layout.emitPointIndices(rw, loc, spatialShape, spatialThreads,
                              spatialCoords, spatialLocals);
  for (auto [a, p] : llvm::zip(spatial, pts))
    points[a] = p;
}

void TileComputeLowering::emitSpatialAxis(
    unsigned s, function_ref<void(Value valid)> inner) {
  if (s == spatial.size()) {
    setSpatialPoints();
    SmallVector<Value> conds;
    for (unsigned a : spatial)
      if (!isFullBound(a))
        conds.push_back(arith::CmpIOp::create(
            rw, loc, arith::CmpIPredicate::ult, points[a], bounds[a]));
    inner(conds.empty()
              ? arith::ConstantIntOp::create(rw, loc, 1, 1).getResult()
              : andAll(rw, loc, conds));
    return;
  }
  unsigned a = spatial[s];
  int64_t count = localCounts[a];
  if (unrollPoints || count == 1) {
    for (int64_t l = 0; l < count; ++l) {
      locals[a] = constIndex(rw, loc, l);
      emitSpatialAxis(s + 1, inner);
    }
    return;
  }
  OpBuilder::InsertionGuard g(rw);
  auto loop =
      scf::ForOp::create(rw, loc, constIndex(rw, loc, 0),
                         constIndex(rw, loc, count), constIndex(rw, loc, 1));
  rw.setInsertionPoint(loop.getBody()->getTerminator());
  locals[a] = loop.getInductionVar();
  emitSpatialAxis(s + 1, inner);
}

/// No reduce axes: the body at each point into the outputs.
void TileComputeLowering::lowerElementwise() {
  // Into a shared tile (the epilogue's staging tile) or a whole global
  // tile, runs of a thread's consecutive points along the tile's innermost
  // axis go as one vector store: one instruction per 16 bytes (a tensor
  // core's accumulator pairs as 8-byte stores), and no bank conflicts
  // between the lanes' scalar stores into shared memory.
  // Named, not structured, bindings: the lambda below captures them.
  unsigned storeAxis;
  int64_t storeWidth;
  std::tie(storeAxis, storeWidth) = tileStoreVector(
      op, layout, spatial, spatialShape, spatialThreads, localCounts,
      unrollPoints, state.isFragment(op.getOutputs()[0]),
      [&](unsigned a) { return isFullBound(a); });
  spatialLoops([&](Value valid) {
    if (storeWidth > 1)
      return storeVectorRun(storeAxis, storeWidth);
    // A slice layout holds a row in several lanes: each keeps its copy in
    // a fragment, one of them stores it to memory.
    Value owner;
    if (auto slice = dyn_cast<SliceLayoutAttr>(Attribute(layout));
        slice && !allFragmentOutputs) {
      SmallVector<Value> spatialLocals;
      for (unsigned a : spatial)
        spatialLocals.push_back(locals[a]);
      owner = slice.emitIsOwner(rw, loc, spatialShape, spatialThreads,
                                spatialCoords, spatialLocals);
    }
    underIf(valid, [&] {
      SmallVector<Value> values = emitBody();
      for (unsigned o = 0; o < numOutputs; ++o) {
        auto store = [&, o = o] {
          auto [storage, idx] = outputRef(o);
          memref::StoreOp::create(rw, loc, values[o], storage, idx);
        };
        if (owner && !state.isFragment(op.getOutputs()[o]))
          underIf(owner, store);
        else
          store();
      }
    });
  });
}

/// At the first point of a run of `storeWidth` along `storeAxis`: the
/// run's values as one vector store.
void TileComputeLowering::storeVectorRun(unsigned storeAxis,
                                         int64_t storeWidth) {
  std::optional<int64_t> l = getConstantIntValue(locals[storeAxis]);
  if (*l % storeWidth != 0)
    return; // stored with the run's first point
  SmallVector<Value> first = points, firstLocals = locals;
  SmallVector<Value> items;
  for (int64_t e = 0; e < storeWidth; ++e) {
    locals[storeAxis] = constIndex(rw, loc, *l + e);
    setSpatialPoints();
    items.push_back(emitBody()[0]);
  }
  points = first;
  locals = firstLocals;
  auto [storage, idx] = outputRef(0);
  Value vec = vector::FromElementsOp::create(
      rw, loc, VectorType::get({storeWidth}, items[0].getType()), items);
  vector::StoreOp::create(
      rw, loc, vec, storage, idx, /*nontemporal=*/false,
      llvm::MaybeAlign(storeWidth * elementBytes(items[0].getType())));
}

/// Too many points per thread to unroll: the reduce loops outermost,
/// every point of the thread's fragment updated in each step.
void TileComputeLowering::loopAccumulation() {
  OpBuilder::InsertionGuard g(rw);
  for (unsigned r : reduce) {
    auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 0), bounds[r],
                                   constIndex(rw, loc, 1));
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    points[r] = loop.getInductionVar();
  }
  spatialLoops([&](Value valid) {
    underIf(valid, [&] { accumulateIntoOutputs(emitBody()); });
  });
}

/// An accumulation into fragments: the layout's strategy.
LogicalResult TileComputeLowering::accumulateWithStrategy() {
  auto strategy = dyn_cast<TileAccumulationAttrInterface>(Attribute(layout));
  if (!strategy)
    return op.emitOpError() << "has no accumulation strategy for fragment "
                               "layout "
                            << layout
                            << " (it does not implement "
                               "TileAccumulationAttrInterface)";
  auto pointLoops = [&] { loopAccumulation(); };
  AccumulationContext context(state, tid, t, bounds,
                              unrollPoints
                                  ? function_ref<void()>()
                                  : function_ref<void()>(pointLoops));
  return strategy.emitAccumulation(context, op);
}

/// At one point: accumulators through the reduce loops, then (for a reduce
/// axis over threads) a cross-thread combine every thread takes part in.
void TileComputeLowering::reduceAtPoint(Value valid) {
  SmallVector<Type> accTypes;
  SmallVector<Value> inits;
  for (unsigned o = 0; o < numOutputs; ++o) {
    Type elem = cast<MemRefType>(op.getOutputs()[o].getType()).getElementType();
    accTypes.push_back(elem);
    TypedAttr id = op.hasCustomReducer()
                       ? cast<TypedAttr>((*op.getIdentity())[o])
                       : getCombinerIdentity(*op.getCombiner(), elem);
    inits.push_back(arith::ConstantOp::create(rw, loc, elem, id));
  }
  auto partial = scf::IfOp::create(rw, loc, accTypes, valid,
                                   /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(partial.thenBlock());
    SmallVector<Value> accs = inits;
    if (op.getAccumulate() && !threadReduceAxis) {
      accs.clear();
      for (unsigned o = 0; o < numOutputs; ++o) {
        auto [storage, idx] = outputRef(o);
        accs.push_back(memref::LoadOp::create(rw, loc, storage, idx));
      }
    }
    SmallVector<scf::ForOp> loops;
    for (unsigned r : reduce) {
      Value lb = threads[r] == 1 ? constIndex(rw, loc, 0) : t[r];
      auto loop = scf::ForOp::create(rw, loc, lb, bounds[r],
                                     constIndex(rw, loc, threads[r]), accs);
      if (!loops.empty())
        scf::YieldOp::create(rw, loc, loop.getResults());
      loops.push_back(loop);
      points[r] = loop.getInductionVar();
      accs = llvm::to_vector_of<Value>(loop.getRegionIterArgs());
      rw.setInsertionPointToStart(loop.getBody());
    }
    SmallVector<Value> values = emitBody();
    scf::YieldOp::create(rw, loc, combineFused(rw, loc, op, accs, values));
    rw.setInsertionPointAfter(loops.front());
    scf::YieldOp::create(rw, loc, loops.front().getResults());
    rw.setInsertionPointToStart(partial.elseBlock());
    scf::YieldOp::create(rw, loc, inits);
  }
  SmallVector<Value> accs = llvm::to_vector_of<Value>(partial.getResults());
  Value storeCond = valid;
  if (threadReduceAxis) {
    unsigned r = *threadReduceAxis;
    int64_t stride = 1;
    for (unsigned a = r + 1; a < numAxes; ++a)
      stride *= threads[a];
    accs = combineAcrossThreads(state, op, accs, t[r], threads[r], stride,
                                numThreads);
    Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                        t[r], constIndex(rw, loc, 0));
    storeCond = arith::AndIOp::create(rw, loc, valid, first);
    if (op.getAccumulate()) {
      // Fold the stored value in after the cross-thread combine.
      underIf(storeCond, [&] { accumulateIntoOutputs(accs); });
      return;
    }
  }
  underIf(storeCond, [&] {
    for (unsigned o = 0; o < numOutputs; ++o) {
      auto [storage, idx] = outputRef(o);
      memref::StoreOp::create(rw, loc, accs[o], storage, idx);
    }
  });
}

LogicalResult tile_lowering::lowerTileCompute(LaunchState &state,
                                              TileComputeOp op) {
  return TileComputeLowering(state, op).lower();
}
