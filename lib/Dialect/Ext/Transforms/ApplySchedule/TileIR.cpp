//===- TileIR.cpp - a tile's IR -------------------------------------------===//
//
// The IR of a tile's geometry built from the plan: its offsets and valid
// extents, where an input's window starts, the shared tile it is copied
// into, a view of it in place; a compute's body cloned into a tile; the
// names that ops and diagnostics carry.
//
//===----------------------------------------------------------------------===//

#include "TileIR.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

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

std::string tiling::quotedName(ComputeOp op) {
  if (StringAttr name = op.getNameAttr())
    return ("'" + name.getValue() + "'").str();
  return "(unnamed)";
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

/// Where the window of L, or of its quotient or remainder, starts.
static Value quotientOrigin(OpBuilder &b, Location loc, const WindowDim &d,
                            ArrayRef<Value> offsets) {
  if (d.kind == WindowDim::Kind::Mod && d.aligned)
    return constIndex(b, loc, llvm::mod(d.constant + d.lo, d.divisor) /
                                  d.postDivisor);
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
  if (d.kind == WindowDim::Kind::Linear)
    return origin;
  // An exact quotient: the copies still see a multiple of the tile.
  if (d.aligned)
    return arith::DivSIOp::create(b, loc, origin,
                                  constIndex(b, loc, d.divisor));
  // Else the quotient (or remainder) of L's origin, with the access's floor
  // semantics.
  AffineExpr x = getAffineDimExpr(0, b.getContext());
  AffineExpr e = d.kind == WindowDim::Kind::FloorDiv ? x.floorDiv(d.divisor)
                                                     : x % d.divisor;
  return affine::expandAffineExpr(b, loc, e, origin, ValueRange{});
}

Value tiling::windowOrigin(OpBuilder &b, Location loc, const WindowDim &d,
                           ArrayRef<Value> offsets) {
  Value origin = quotientOrigin(b, loc, d, offsets);
  if (d.offset == 0)
    return origin;
  return arith::AddIOp::create(b, loc, origin, constIndex(b, loc, d.offset));
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
