//===- TilingPlan.cpp - the tiling a schedule gives a compute -------------===//
//
// The first step of ext-apply-schedule: from an ext.compute and its schedule,
// the plan (tile grid, the reduce axis split into k-steps, which operands go
// through shared memory, each input's window over a tile), checked against
// 64-bit overflow since every number comes from the input; then the IR of a
// tile's geometry: its offsets and valid extents, where an input's window
// starts, the shared tile it is copied into, a view of it in place.
//
//===----------------------------------------------------------------------===//

#include "TilingPlan.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

FailureOr<TilingPlan> tiling::planTiling(ComputeOp op, ScheduleAttr schedule) {
  TilingPlan plan;
  plan.axes = op.getAxisList();
  plan.extents = op.getExtents();
  plan.tile = llvm::to_vector(schedule.getTile());
  plan.threads = llvm::to_vector(schedule.getThreads());
  unsigned numAxes = plan.axes.size();
  // A dynamic extent reads the first dynamic dimension that binds it (the
  // schedule verifier allows them on blocked spatial axes and the reduce
  // axis the k-loop steps through).
  for (unsigned a = 0; a < numAxes; ++a)
    plan.extentSources.push_back(getExtentSource(op, a));

  bool threadReduce = false;
  for (unsigned a = 0; a < numAxes; ++a) {
    if (plan.axes[a].isSpatial()) {
      plan.spatialAxes.push_back(a);
      continue;
    }
    if (plan.threads[a] > 1)
      threadReduce = true;
    // A tile larger than the axis is one ragged (zero-filled) k-step.
    if (plan.tile[a] != plan.extents[a])
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
    plan.tileCounts.push_back(
        plan.axes[a].isDynamic()
            ? ShapedType::kDynamic
            : llvm::divideCeil(plan.extents[a], plan.tile[a]));
  }
  if (plan.tileCounts.empty())
    plan.tileCounts.push_back(1);
  if (plan.kAxis)
    plan.iters = ShapedType::isDynamic(plan.extents[*plan.kAxis])
                     ? ShapedType::kDynamic
                     : llvm::divideCeil(plan.extents[*plan.kAxis],
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
        if (failed(verifySwizzleOnTile(swizzle, shape, [&]() {
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
    auto inputType = cast<MemRefType>(op.getInputs()[i].getType());
    AffineMap inputMap = op.getInputMap(i);
    if (inputType.getRank() > 0 &&
        ShapedType::isDynamic(inputType.getShape().back()))
      if (auto dim = dyn_cast<AffineDimExpr>(inputMap.getResults().back()))
        w.rowMultiple = plan.axes[dim.getPosition()].getMultipleOf();
    // A dimension an axis indexes alone has the axis's extent (the verifier
    // binds them): tiles that divide it keep every window inside.
    for (AffineExpr e : inputMap.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      w.inBounds.push_back(dim && tileDividesExtent(plan, dim.getPosition()));
    }
    if (plan.cached.test(i) && failed(AllocSharedOp::computeAlignedStrides(
                                   w.shape, plan.cacheAttrs[i].getAlign())))
      return op.emitOpError()
             << "the shared tile of input #" << i << " overflows a 64-bit size";
    if (plan.cached.test(i))
      if (SwizzleAttr swizzle = plan.cacheAttrs[i].getSwizzle()) {
        // (Its size fits: checked with the padded strides above.)
        if (failed(verifySwizzleOnTile(swizzle, w.shape, [&]() {
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

namespace {

/// min(tile, extent - offset), folded to `tile` when the axis divides evenly
/// (a static extent, or a dynamic one whose stated multiple the tile
/// divides: checked when the compute runs).
Value validExtent(OpBuilder &b, Location loc, const TilingPlan &plan,
                  unsigned a, Value offset) {
  int64_t tile = plan.tile[a];
  if (tileDividesExtent(plan, a))
    return constIndex(b, loc, tile);
  Value rest =
      arith::SubIOp::create(b, loc, extentValue(b, loc, plan, a), offset);
  return arith::MinSIOp::create(b, loc, constIndex(b, loc, tile), rest);
}

} // namespace

Value tiling::extentValue(OpBuilder &b, Location loc, const TilingPlan &plan,
                          unsigned a) {
  if (!ShapedType::isDynamic(plan.extents[a]))
    return constIndex(b, loc, plan.extents[a]);
  return memref::DimOp::create(b, loc, plan.extentSources[a]->first,
                               plan.extentSources[a]->second);
}

Value tiling::tileCountValue(OpBuilder &b, Location loc, const TilingPlan &plan,
                             unsigned a) {
  return arith::CeilDivUIOp::create(b, loc, extentValue(b, loc, plan, a),
                                    constIndex(b, loc, plan.tile[a]));
}

bool tiling::tileDividesExtent(const TilingPlan &plan, unsigned a) {
  int64_t extent = plan.extents[a];
  int64_t known =
      ShapedType::isDynamic(extent) ? plan.axes[a].getMultipleOf() : extent;
  return known % plan.tile[a] == 0;
}

std::string tiling::quotedName(ComputeOp op) {
  if (StringAttr name = op.getNameAttr())
    return ("'" + name.getValue() + "'").str();
  return "(unnamed)";
}

FailureOr<ComputeOp>
tiling::findNamedCompute(ComputeOp op, StringRef name,
                         function_ref<InFlightDiagnostic()> err) {
  ComputeOp found;
  for (Operation &other : *op->getBlock()) {
    auto c = dyn_cast<ComputeOp>(other);
    if (!c || c == op || !c.getNameAttr() || c.getNameAttr().getValue() != name)
      continue;
    if (found)
      return err() << "two computes of that name in the block";
    found = c;
  }
  if (!found)
    return err() << "no compute of that name in the block";
  return found;
}

bool tiling::isReadElsewhere(Value memref, ArrayRef<Operation *> except) {
  if (isa<BlockArgument>(memref))
    return true;
  return llvm::any_of(memref.getUsers(), [&](Operation *user) {
    return !llvm::is_contained(except, user) && !isa<memref::DeallocOp>(user);
  });
}

Operation *tiling::findUseBetween(Operation *first, Operation *last,
                                  ArrayRef<Value> values) {
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode())
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return llvm::is_contained(values, v); }))
      return op;
  return nullptr;
}

Operation *tiling::findWriteBetween(Operation *first, Operation *last,
                                    ValueRange values) {
  auto touches = [&](ValueRange operands) {
    return llvm::any_of(operands,
                        [&](Value v) { return llvm::is_contained(values, v); });
  };
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode()) {
    if (auto compute = dyn_cast<ComputeOp>(op)) {
      if (touches(compute.getOutputs()))
        return op;
      continue;
    }
    if (touches(op->getOperands()))
      return op;
  }
  return nullptr;
}

void tiling::cloneBodyWithOffsets(ComputeOp op, Region &dst,
                                  ArrayRef<Value> offsets) {
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

DenseBoolArrayAttr tiling::inBoundsAttr(Builder &b, const InputWindow &window) {
  if (llvm::none_of(window.inBounds, [](bool x) { return x; }))
    return {};
  return b.getDenseBoolArrayAttr(window.inBounds);
}

OpFoldResult tiling::itersValue(OpBuilder &b, Location loc,
                               const TilingPlan &plan) {
  if (!ShapedType::isDynamic(plan.iters))
    return b.getIndexAttr(plan.iters);
  return tileCountValue(b, loc, plan, *plan.kAxis);
}

TileFrame tiling::buildFrame(OpBuilder &b, Location loc, const TilingPlan &plan,
                             ValueRange coords) {
  unsigned numAxes = plan.axes.size();
  TileFrame f;
  Value zero = constIndex(b, loc, 0);
  f.offsets.assign(numAxes, zero);
  for (auto [d, a] : llvm::enumerate(plan.blockedAxes))
    f.offsets[a] = arith::MulIOp::create(b, loc, coords[d],
                                         constIndex(b, loc, plan.tile[a]));
  for (unsigned a = 0; a < numAxes; ++a)
    f.bounds.push_back(plan.axes[a].isSpatial()
                           ? validExtent(b, loc, plan, a, f.offsets[a])
                           : extentValue(b, loc, plan, a));
  return f;
}

Value tiling::windowOrigin(OpBuilder &b, Location loc, const WindowDim &d,
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

MemRefType tiling::sharedTileType(ArrayRef<int64_t> shape, Type elem,
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

Value tiling::tileView(OpBuilder &b, Location loc, Value source,
                       ValueRange origins, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> offs(origins.begin(), origins.end());
  SmallVector<OpFoldResult> szs, strides;
  for (int64_t s : sizes) {
    szs.push_back(b.getIndexAttr(s));
    strides.push_back(b.getIndexAttr(1));
  }
  return memref::SubViewOp::create(b, loc, source, offs, szs, strides);
}

Location tiling::phaseLoc(Location loc, const Twine &phase) {
  return NameLoc::get(StringAttr::get(loc->getContext(), phase), loc);
}
