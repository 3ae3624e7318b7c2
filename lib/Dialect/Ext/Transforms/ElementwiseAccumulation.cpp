//===- ElementwiseAccumulation.cpp - register blocking of tile computes ---===//
//
// The element-wise accumulation strategy every fragment layout can take (the
// cyclic and blocked layouts' own, #ext.mma's fallback for other bodies):
// per step of the reduce axes, each input's slice for the thread's points is
// read once, in vectors along runs of consecutive points, then every point of
// the thread's register tile is updated from registers with fused
// multiply-adds.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "TileLoweringUtils.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

/// Inner reduce loops of at most this many (vector) steps are unrolled.
static constexpr int64_t kFullUnrollTrips = 4;

namespace {

bool isWorkgroupMemRef(Type t) {
  auto type = dyn_cast<MemRefType>(t);
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// How one input of an outer product is read: `width` elements at once along
/// axis `axis` (the axis its innermost index follows with unit stride).
struct SliceRead {
  int axis = -1;
  int64_t width = 1;
  std::string whyNarrow; // set when width < the requested vector
};

} // namespace

/// How each input of `op` is read per reduce step: the widest vector that
/// the thread's runs of points, the strides and the alignment allow (a
/// remark says why one is narrower than the schedule's vector). Spatial
/// axis `a` is dimension `spatialDim[a]` of the spatial tile
/// (`spatialShape` over `spatialThreads`); `spatialFull`: every spatial
/// point is valid; the innermost reduce axis `inner` steps `unroll` points.
static SmallVector<SliceRead>
planSliceReads(LaunchState &state, TileComputeOp op, ArrayRef<int> spatialDim,
               ArrayRef<int64_t> spatialShape,
               ArrayRef<int64_t> spatialThreads, bool spatialFull,
               std::optional<unsigned> inner, int64_t unroll) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  unsigned numAxes = axes.size();
  FragmentLayoutAttrInterface layout = op.getLayoutOrDefault();
  int64_t vector = std::max<int64_t>(1, op.getVector());
  SmallVector<SliceRead> reads(op.getInputs().size());
  SmallVector<AffineMap> maps = op.getMaps();
  for (auto [i, in] : llvm::enumerate(op.getInputs())) {
    SliceRead &r = reads[i];
    auto type = cast<MemRefType>(in.getType());
    int64_t maxWidth =
        std::min<int64_t>(vector, 16 / elementBytes(type.getElementType()));
    // Shared tiles, and global tiles read whole (every point valid) at an
    // origin the vector divides: a fixup's partial tiles, uncached windows.
    bool shared = isWorkgroupMemRef(type);
    if (state.isFragment(in) || maxWidth <= 1 || type.getRank() == 0 ||
        (!shared && (type.getMemorySpace() || !spatialFull)))
      continue;
    AffineMap map = maps[i];
    SmallVector<int64_t> flat;
    if (failed(getFlattenedAffineExpr(map.getResults().back(), numAxes, 0,
                                      &flat))) {
      r.whyNarrow = "its innermost index is not linear in the axes";
    } else if (flat.size() != numAxes + 1) {
      // A packed input (`k floordiv 2`): neighbours share an element.
      r.whyNarrow = "its innermost index is a floordiv or mod of the axes";
    } else {
      SmallVector<unsigned> used;
      for (unsigned a = 0; a < numAxes; ++a)
        if (flat[a] != 0)
          used.push_back(a);
      SmallVector<int64_t> strides;
      int64_t offset;
      bool otherDimsUseAxis =
          used.size() == 1 &&
          llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) {
            return e.isFunctionOfDim(used[0]);
          });
      if (used.size() != 1 || flat[used[0]] != 1 || otherDimsUseAxis) {
        r.whyNarrow = "its innermost index does not follow one axis with unit "
                      "stride";
      } else if (failed(type.getStridesAndOffset(strides, offset)) ||
                 strides.back() != 1) {
        r.whyNarrow = "its innermost dimension is not contiguous";
      } else {
        if (!shared)
          offset = globalTileOffset(in, maxWidth);
        unsigned a = used[0];
        int64_t run = 1;
        if (axes[a].isSpatial())
          run =
              layout.getContiguity(spatialDim[a], spatialShape, spatialThreads);
        else if (inner && a == *inner)
          run = unroll;
        int64_t w = runVectorWidth(run, maxWidth, strides, offset, flat.back());
        r.axis = a;
        r.width = w;
        if (w < maxWidth) {
          if (run < maxWidth || run % maxWidth != 0) {
            llvm::raw_string_ostream os(r.whyNarrow);
            os << "a thread holds runs of " << run
               << " consecutive points along axis '" << axes[a].getName()
               << "' (layout " << layout << ")";
          } else
            r.whyNarrow = "the shared tile's row stride or offset is not a "
                          "multiple of " +
                          std::to_string(maxWidth) + " elements";
        }
      }
    }
    if (!r.whyNarrow.empty())
      op.emitRemark() << "reads input #" << i << " from shared memory "
                      << r.width << " element(s) at a time instead of "
                      << maxWidth << ": " << r.whyNarrow;
  }
  return reads;
}

LogicalResult tile_lowering::emitOuterProduct(LaunchState &state,
                                              TileComputeOp op,
                                              ArrayRef<Value> t,
                                              ArrayRef<Value> bounds) {
  IRRewriter &rw = state.getRewriter();
  Location loc = op.getLoc();
  SmallVector<AxisAttr> axes = op.getAxisList();
  ArrayRef<int64_t> threads = op.getThreads();
  unsigned numAxes = axes.size();
  FragmentLayoutAttrInterface layout = op.getLayoutOrDefault();
  SmallVector<unsigned> spatial, reduce;
  for (unsigned a = 0; a < numAxes; ++a)
    (axes[a].isSpatial() ? spatial : reduce).push_back(a);
  SmallVector<int64_t> spatialShape, spatialThreads;
  SmallVector<Value> spatialCoords;
  SmallVector<int> spatialDim(numAxes, -1);
  for (auto [d, a] : llvm::enumerate(spatial)) {
    spatialShape.push_back(axes[a].getExtent());
    spatialThreads.push_back(threads[a]);
    spatialCoords.push_back(t[a]);
    spatialDim[a] = d;
  }
  auto isFull = [&](unsigned a) {
    std::optional<int64_t> c = getConstantIntValue(bounds[a]);
    return c && *c == axes[a].getExtent();
  };

  // Points beyond the spatial bounds are computed too (their results are
  // never stored) when that reads nothing out of bounds and cannot trap:
  // every input lives in shared memory or a fragment, and the body is
  // speculatable (no integer division, say).
  bool inputsInTile = llvm::all_of(op.getInputs(), [&](Value in) {
    return state.isFragment(in) || isWorkgroupMemRef(in.getType());
  });
  bool bodySpeculatable = llvm::all_of(
      op.getBodyBlock().without_terminator(), [](Operation &inner) {
        return isPure(&inner) && isSpeculatable(&inner);
      });
  bool spatialFull = llvm::all_of(spatial, isFull);
  bool guardPoints = !(inputsInTile && bodySpeculatable) && !spatialFull;

  // The innermost reduce axis steps `unroll` points at a time (its reads
  // become vectors); it needs a constant bound that the step divides. Up to
  // kFullUnrollTrips such steps are unrolled completely.
  int64_t vector = std::max<int64_t>(1, op.getVector());
  std::optional<unsigned> inner;
  int64_t unroll = 1;
  if (!reduce.empty()) {
    inner = reduce.back();
    if (std::optional<int64_t> c = getConstantIntValue(bounds[*inner]))
      for (unroll = vector; unroll > 1 && *c % unroll != 0; unroll /= 2)
        ;
  }

  // How each input is read.
  SmallVector<SliceRead> reads =
      planSliceReads(state, op, spatialDim, spatialShape, spatialThreads,
                     spatialFull, inner, unroll);
  SmallVector<AffineMap> maps = op.getMaps();

  // The reduce loops; the innermost steps `unroll` points.
  OpBuilder::InsertionGuard g(rw);
  SmallVector<Value> reduceBase(numAxes);
  scf::ForOp innerLoop;
  for (unsigned r : reduce) {
    int64_t step = inner && r == *inner ? unroll : 1;
    auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 0), bounds[r],
                                   constIndex(rw, loc, step));
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    reduceBase[r] = loop.getInductionVar();
    innerLoop = loop;
  }

  // A key names an element of a thread's slice by the local index of every
  // spatial axis and the step within the unrolled reduce axis (-1: unused).
  using Key = SmallVector<int64_t>;
  SmallVector<int64_t> counts(numAxes, 1);
  for (auto [s, n] :
       llvm::enumerate(layout.getLocalShape(spatialShape, spatialThreads)))
    counts[spatial[s]] = n;
  auto pointsOf = [&](const Key &key) {
    SmallVector<Value> points(numAxes), locals(numAxes);
    SmallVector<Value> spatialLocals;
    for (unsigned a : spatial) {
      locals[a] = constIndex(rw, loc, std::max<int64_t>(key[a], 0));
      spatialLocals.push_back(locals[a]);
    }
    SmallVector<Value> pts = layout.emitPointIndices(
        rw, loc, spatialShape, spatialThreads, spatialCoords, spatialLocals);
    for (auto [a, p] : llvm::zip(spatial, pts))
      points[a] = p;
    for (unsigned r : reduce)
      points[r] = inner && r == *inner && key[r] > 0
                      ? rw.createOrFold<arith::AddIOp>(
                            loc, reduceBase[r], constIndex(rw, loc, key[r]))
                      : reduceBase[r];
    return std::make_pair(points, locals);
  };

  std::vector<std::map<Key, Value>> slices(op.getInputs().size());
  auto element = [&](unsigned i, const Key &pointKey) -> Value {
    Value in = op.getInputs()[i];
    Key key(numAxes, -1);
    for (unsigned a = 0; a < numAxes; ++a)
      if (maps[i].isFunctionOfDim(a))
        key[a] = pointKey[a];
    auto it = slices[i].find(key);
    if (it != slices[i].end())
      return it->second;
    const SliceRead &r = reads[i];
    Key start = key;
    if (r.width > 1)
      start[r.axis] -= start[r.axis] % r.width;
    auto [points, locals] = pointsOf(start);
    if (state.isFragment(in)) {
      Value v = memref::LoadOp::create(
          rw, loc, state.storageOf(in),
          accessIndices(rw, loc, maps[i], points, locals, /*isFragment=*/true));
      return slices[i][key] = v;
    }
    SmallVector<Value> idx = accessIndices(rw, loc, maps[i], points, locals,
                                           /*isFragment=*/false);
    if (r.width == 1) {
      Value v = memref::LoadOp::create(rw, loc, in, idx);
      return slices[i][key] = v;
    }
    Type elem = cast<MemRefType>(in.getType()).getElementType();
    auto vecType = VectorType::get({r.width}, elem);
    Value vec =
        vector::LoadOp::create(rw, loc, vecType, in, idx, /*nontemporal=*/false,
                               llvm::MaybeAlign(r.width * elementBytes(elem)));
    for (int64_t e = 0; e < r.width; ++e) {
      Key k = start;
      k[r.axis] += e;
      slices[i][k] = vector::ExtractOp::create(rw, loc, vec, e);
    }
    return slices[i][key];
  };

  unsigned numOutputs = op.getOutputs().size();
  unsigned numInputs = op.getInputs().size();
  int64_t steps = inner ? unroll : 1;
  for (int64_t step = 0; step < steps; ++step) {
    Key key(numAxes, -1);
    if (inner)
      key[*inner] = step;
    std::function<void(unsigned)> emitPoints = [&](unsigned s) {
      if (s < spatial.size()) {
        for (int64_t l = 0; l < counts[spatial[s]]; ++l) {
          key[spatial[s]] = l;
          emitPoints(s + 1);
        }
        return;
      }
      // Named, not structured, bindings: lambdas capture them (clang 14, the
      // fuzz build's compiler, does not capture structured bindings).
      auto pointsAndLocals = pointsOf(key);
      SmallVector<Value> &points = pointsAndLocals.first;
      SmallVector<Value> &locals = pointsAndLocals.second;
      auto update = [&] {
        SmallVector<Value> elems;
        for (unsigned i = 0; i < numInputs; ++i)
          elems.push_back(element(i, key));
        SmallVector<Value> values =
            inlineComputeRegion(rw, op.getBody(), elems, [&](StringRef name) {
              return points[*op.getAxisPosition(name)];
            });
        SmallVector<Value> accs;
        SmallVector<SmallVector<Value>> idx;
        for (unsigned o = 0; o < numOutputs; ++o) {
          Value out = op.getOutputs()[o];
          idx.push_back(accessIndices(rw, loc, maps[numInputs + o], points,
                                      locals, state.isFragment(out)));
          accs.push_back(memref::LoadOp::create(rw, loc, state.storageOf(out),
                                                idx.back()));
        }
        SmallVector<Value> combined = combineFused(rw, loc, op, accs, values);
        for (unsigned o = 0; o < numOutputs; ++o)
          memref::StoreOp::create(rw, loc, combined[o],
                                  state.storageOf(op.getOutputs()[o]), idx[o]);
      };
      if (!guardPoints)
        return update();
      SmallVector<Value> conds;
      for (unsigned a : spatial)
        if (!isFull(a))
          conds.push_back(arith::CmpIOp::create(
              rw, loc, arith::CmpIPredicate::ult, points[a], bounds[a]));
      auto ifOp = scf::IfOp::create(rw, loc, andAll(rw, loc, conds),
                                    /*withElse=*/false);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      // Guarded loads stay under the guard: no slice is shared across it.
      std::vector<std::map<Key, Value>> saved = slices;
      update();
      slices = std::move(saved);
    };
    emitPoints(0);
  }
  // A k-step's few vector steps run straight-line (a k tile of 8 read 4 at
  // a time is 2 of them): no loop counter, and the shared reads' offsets
  // become immediates, as in a hand-written SGEMM.
  if (innerLoop)
    if (std::optional<APInt> trips = innerLoop.getStaticTripCount();
        trips && trips->getSExtValue() <= kFullUnrollTrips)
      (void)loopUnrollFull(innerLoop);
  return success();
}

namespace {
/// The element-wise layouts' strategy: register blocking (through the
/// context, which loops over the points instead when they are too many to
/// unroll).
template <typename LayoutAttr>
struct ElementwiseAccumulationModel
    : TileAccumulationAttrInterface::ExternalModel<
          ElementwiseAccumulationModel<LayoutAttr>, LayoutAttr> {
  LogicalResult emitAccumulation(Attribute, TileAccumulationContext &context,
                                 Operation *op) const {
    return context.emitElementwise(cast<TileComputeOp>(op));
  }
};
} // namespace

void ext::attachElementwiseAccumulationModels(MLIRContext *context) {
  CyclicLayoutAttr::attachInterface<
      ElementwiseAccumulationModel<CyclicLayoutAttr>>(*context);
  BlockedLayoutAttr::attachInterface<
      ElementwiseAccumulationModel<BlockedLayoutAttr>>(*context);
}
