//===- KernelEmitter.cpp - ext.kernel's regions walked by a decomposition -===//
//
// The tile arithmetic of a launch, the fixup workspace's layout, and the
// fixup itself: partial tiles stored and combined through the workspace,
// ordered by flags (signal and wait at the GPU's scope).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;
using namespace ext::kernel_to_gpu;

namespace ext {
namespace kernel_to_gpu {

/// A tile count (or a product of them): a constant, or a value where the
/// grid is known only at run time. Constants fold, so a static grid's IR
/// has one constant per count or product.
Value indexValue(OpBuilder &b, Location loc, OpFoldResult x) {
  return getValueOrCreateConstantIndexOp(b, loc, x);
}
OpFoldResult mulFolded(OpBuilder &b, Location loc, OpFoldResult x,
                       OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  if (cx == 1)
    return y;
  if (cy == 1)
    return x;
  return arith::MulIOp::create(b, loc, indexValue(b, loc, x),
                               indexValue(b, loc, y))
      .getResult();
}

OpFoldResult ceilDivFolded(OpBuilder &b, Location loc, OpFoldResult x,
                           int64_t y) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return b.getIndexAttr(llvm::divideCeil(*cx, y));
  if (y == 1)
    return x;
  return arith::CeilDivUIOp::create(b, loc, indexValue(b, loc, x),
                                    constIndex(b, loc, y))
      .getResult();
}

/// Tile coordinates of linear tile index `tile`. Leading tile dimensions
/// (batches) are outermost; the last two are walked in `raster` order in
/// groups of `swizzle` rows (row raster) or columns (col raster), so that
/// consecutive CTAs share input panels in L2.
SmallVector<Value> delinearizeTile(OpBuilder &b, Location loc, Value tile,
                                   ArrayRef<OpFoldResult> tiles,
                                   RasterOrder raster, int64_t swizzle) {
  unsigned rank = tiles.size();
  SmallVector<Value> coords(rank);
  if (rank == 1) {
    coords[0] = tile;
    return coords;
  }
  OpFoldResult m = tiles[rank - 2], n = tiles[rank - 1];
  Value plane = indexValue(b, loc, mulFolded(b, loc, m, n));
  Value rest = arith::RemUIOp::create(b, loc, tile, plane);
  Value outer = arith::DivUIOp::create(b, loc, tile, plane);
  for (int d = rank - 3; d >= 0; --d) {
    Value size = indexValue(b, loc, tiles[d]);
    coords[d] = arith::RemUIOp::create(b, loc, outer, size);
    outer = arith::DivUIOp::create(b, loc, outer, size);
  }
  // Grouped order over an (major x minor) grid: `swizzle` majors at a time,
  // minor-fastest inside a group.
  bool rowMajor = raster == RasterOrder::row;
  OpFoldResult major = rowMajor ? m : n, minor = rowMajor ? n : m;
  Value majorIdx, minorIdx;
  if (swizzle <= 1) {
    majorIdx = arith::DivUIOp::create(b, loc, rest, indexValue(b, loc, minor));
    minorIdx = arith::RemUIOp::create(b, loc, rest, indexValue(b, loc, minor));
  } else {
    Value groupSpan = indexValue(
        b, loc, mulFolded(b, loc, b.getIndexAttr(swizzle), minor));
    Value group = arith::DivUIOp::create(b, loc, rest, groupSpan);
    Value first = arith::MulIOp::create(b, loc, group, constIndex(b, loc, swizzle));
    Value left =
        arith::SubIOp::create(b, loc, indexValue(b, loc, major), first);
    Value groupSize =
        arith::MinUIOp::create(b, loc, left, constIndex(b, loc, swizzle));
    Value inGroup = arith::RemUIOp::create(b, loc, rest, groupSpan);
    majorIdx = arith::AddIOp::create(
        b, loc, first, arith::RemUIOp::create(b, loc, inGroup, groupSize));
    minorIdx = arith::DivUIOp::create(b, loc, inGroup, groupSize);
  }
  coords[rank - 2] = rowMajor ? majorIdx : minorIdx;
  coords[rank - 1] = rowMajor ? minorIdx : majorIdx;
  return coords;
}

/// The kernel's tile counts: constants, and the values of the dynamic ones.
SmallVector<OpFoldResult> tileCounts(OpBuilder &b, KernelOp kernel) {
  SmallVector<OpFoldResult> counts;
  unsigned next = 0;
  for (int64_t t : kernel.getTiles())
    counts.push_back(ShapedType::isDynamic(t)
                         ? OpFoldResult(kernel.getDynamicTiles()[next++])
                         : OpFoldResult(b.getIndexAttr(t)));
  return counts;
}


/// The element bytes of each fragment's partial tile.
static SmallVector<int64_t> partialTileBytes(KernelOp kernel) {
  SmallVector<int64_t> out;
  auto yield = cast<KernelYieldOp>(kernel.getBody().front().getTerminator());
  for (Value frag : yield.getFragments()) {
    auto type = cast<MemRefType>(frag.getType());
    out.push_back(type.getNumElements() *
                  int64_t(llvm::divideCeil(type.getElementTypeBitWidth(), 8)));
  }
  return out;
}

/// The layout for `slots` known only at launch, as host code. The launch
/// checks slots < 2^31, and a partial tile is at most a block's registers,
/// so no product overflows.
WorkspaceLayout layoutWorkspaceAtLaunch(OpBuilder &b, Location loc,
                                        KernelOp kernel, Value slots) {
  auto align = [&](Value v) {
    Value sixteen = constIndex(b, loc, 16);
    return arith::MulIOp::create(
               b, loc, arith::CeilDivUIOp::create(b, loc, v, sixteen), sixteen)
        .getResult();
  };
  WorkspaceLayout layout;
  layout.slots = slots;
  Value bytes = arith::MulIOp::create(b, loc, slots, constIndex(b, loc, 4));
  for (int64_t tileBytes : partialTileBytes(kernel)) {
    Value offset = align(bytes);
    layout.fragmentOffsets.push_back(offset);
    bytes = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, slots, constIndex(b, loc, tileBytes)));
  }
  layout.bytes = align(
      arith::MaxUIOp::create(b, loc, bytes, constIndex(b, loc, 16)));
  return layout;
}

FailureOr<WorkspaceLayout> layoutWorkspace(KernelOp kernel, int64_t slots) {
  Builder b(kernel.getContext());
  WorkspaceLayout layout;
  layout.slots = b.getIndexAttr(slots);
  auto align = [](int64_t v) { return int64_t(llvm::alignTo(v, 16)); };
  std::optional<int64_t> bytes = llvm::checkedMul(slots, int64_t(4));
  for (int64_t tileBytes : partialTileBytes(kernel)) {
    std::optional<int64_t> part = llvm::checkedMul(slots, tileBytes);
    if (!bytes || !part)
      return failure();
    layout.fragmentOffsets.push_back(b.getIndexAttr(align(*bytes)));
    bytes = llvm::checkedAdd(align(*bytes), *part);
  }
  if (!bytes || *bytes > (int64_t(1) << 40))
    return failure();
  layout.bytes = b.getIndexAttr(align(std::max<int64_t>(*bytes, 16)));
  return layout;
}

} // namespace kernel_to_gpu
} // namespace ext

void KernelEmitter::setWorkspace(OpBuilder &b, Location loc, Value workspace,
                                 const WorkspaceLayout &layout) {
  MLIRContext *ctx = b.getContext();
  std::optional<int64_t> slots = getConstantIntValue(layout.slots);
  int64_t slotDim = slots ? *slots : ShapedType::kDynamic;
  // A slot count known at launch is the views' one dynamic size.
  SmallVector<Value> sizes;
  if (!slots)
    sizes.push_back(cast<Value>(layout.slots));
  auto view = [&](OpFoldResult offset, ArrayRef<int64_t> shape, Type elem) {
    return memref::ViewOp::create(b, loc, MemRefType::get(shape, elem),
                                  workspace, indexValue(b, loc, offset),
                                  sizes);
  };
  flags = view(b.getIndexAttr(0), {slotDim}, IntegerType::get(ctx, 32));
  partials.clear();
  auto yield = cast<KernelYieldOp>(kernel.getBody().front().getTerminator());
  for (auto [i, frag] : llvm::enumerate(yield.getFragments())) {
    auto type = cast<MemRefType>(frag.getType());
    SmallVector<int64_t> shape = {slotDim};
    llvm::append_range(shape, type.getShape());
    partials.push_back(
        view(layout.fragmentOffsets[i], shape, type.getElementType()));
  }
}

Value KernelEmitter::slotView(OpBuilder &b, Location loc, unsigned i,
                              Value slot) {
  auto type = cast<MemRefType>(partials[i].getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[0] = slot;
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(d));
  // The slot dimension dropped: the view has the fragment's shape.
  MemRefType viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, viewType, partials[i], offsets,
                                   sizes, strides);
}

FailureOr<AllocFragmentOp> KernelEmitter::allocOf(Value fragment,
                                                  Location loc) {
  if (auto alloc = fragment.getDefiningOp<AllocFragmentOp>())
    return alloc;
  return emitError(loc) << "a split tile's accumulator must be an "
                           "ext.alloc_fragment to be stored as a partial";
}

/// A tile compute over a fragment's points, distributed as `alloc`
/// distributes them: axes d0..dn (the tile shape) and, for a combine, a
/// reduce axis "r" of extent 1.
static TileComputeOp createFragmentCompute(OpBuilder &b, Location loc,
                                    ArrayRef<int64_t> shape,
                                    AllocFragmentOp alloc, bool combine,
                                    ValueRange ins, ValueRange outs,
                                    ArrayRef<AffineMap> maps, KernelOp kernel) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Attribute> axes;
  for (auto [d, extent] : llvm::enumerate(shape))
    axes.push_back(AxisAttr::get(ctx, ("d" + Twine(d)).str(),
                                 AxisKind::spatial, extent));
  SmallVector<int64_t> allThreads(alloc.getThreads());
  if (combine) {
    axes.push_back(AxisAttr::get(ctx, "r", AxisKind::reduce, 1));
    allThreads.push_back(1);
  }
  auto tc = TileComputeOp::create(
      b, loc, b.getArrayAttr(axes), b.getDenseI64ArrayAttr(allThreads),
      ValueRange{}, ins, outs, b.getAffineMapArrayAttr(maps),
      combine ? kernel.getCombinerAttr() : CombinerKindAttr(),
      combine ? kernel.getIdentityAttr() : ArrayAttr(),
      combine ? b.getUnitAttr() : UnitAttr(), alloc.getLayoutOrDefault());
  if (combine && !kernel.getReducer().empty()) {
    IRMapping mapping;
    kernel.getReducer().cloneInto(&tc.getReducer(), mapping);
  }
  // A combine reads whole partial tiles: 16 bytes at a time where a
  // thread's points run that far (the partial is laid out as the tile).
  if (combine && !ins.empty()) {
    Type elem = cast<MemRefType>(ins.front().getType()).getElementType();
    if (elem.isIntOrFloat())
      tc.setVector(std::max<int64_t>(1, 128 / elem.getIntOrFloatBitWidth()));
  }
  OpBuilder::InsertionGuard g(b);
  SmallVector<Type> types;
  for (Value in : ins)
    types.push_back(cast<MemRefType>(in.getType()).getElementType());
  Block *body = b.createBlock(&tc.getBody(), {}, types,
                              SmallVector<Location>(types.size(), loc));
  YieldOp::create(b, loc, body->getArguments());
  return tc;
}

LogicalResult KernelEmitter::emitStorePartial(OpBuilder &b, Location loc,
                                              Value slot,
                                              ValueRange fragments) {
  if (role == Role::producer)
    return success();
  MLIRContext *ctx = b.getContext();
  for (auto [i, frag] : llvm::enumerate(fragments)) {
    FailureOr<AllocFragmentOp> alloc = allocOf(frag, loc);
    if (failed(alloc))
      return failure();
    ArrayRef<int64_t> shape = cast<MemRefType>(frag.getType()).getShape();
    AffineMap id = AffineMap::getMultiDimIdentityMap(shape.size(), ctx);
    SmallVector<AffineMap> maps = {id, id};
    createFragmentCompute(b, loc, shape, *alloc, /*combine=*/false, frag,
                          slotView(b, loc, i, slot), maps, kernel);
  }
  return success();
}

LogicalResult KernelEmitter::emitCombinePartial(OpBuilder &b, Location loc,
                                                Value slot,
                                                ValueRange fragments) {
  if (fragments.empty() || role == Role::producer)
    return success();
  if (!kernel.getCombiner())
    return kernel.emitOpError("has no combiner to combine partial tiles");
  // A reducer over whole fragments combines them itself: its tile ops, on
  // the fragments and the slot's partials.
  Region &reducer = kernel.getReducer();
  if (!reducer.empty() &&
      isa<MemRefType>(reducer.front().getArgument(0).getType())) {
    IRMapping mapping;
    for (auto [i, frag] : llvm::enumerate(fragments)) {
      mapping.map(reducer.front().getArgument(i), frag);
      mapping.map(reducer.front().getArgument(fragments.size() + i),
                  slotView(b, loc, i, slot));
    }
    for (Operation &op : reducer.front().without_terminator())
      b.clone(op, mapping);
    return success();
  }
  MLIRContext *ctx = b.getContext();
  FailureOr<AllocFragmentOp> alloc = allocOf(fragments.front(), loc);
  if (failed(alloc))
    return failure();
  ArrayRef<int64_t> shape =
      cast<MemRefType>(fragments.front().getType()).getShape();
  unsigned rank = shape.size();
  // Over (d0, ..., r): the tile's points and a reduce axis of extent 1.
  SmallVector<AffineExpr> pointExprs;
  for (unsigned d = 0; d < rank; ++d)
    pointExprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap pointMap = AffineMap::get(rank + 1, 0, pointExprs, ctx);
  SmallVector<Value> ins;
  for (unsigned i = 0; i < fragments.size(); ++i)
    ins.push_back(slotView(b, loc, i, slot));
  SmallVector<AffineMap> maps(2 * fragments.size(), pointMap);
  createFragmentCompute(b, loc, shape, *alloc, /*combine=*/true, ins,
                        fragments, maps, kernel);
  return success();
}

/// The flag of `slot` as an LLVM pointer: the flag protocol uses relaxed
/// (monotonic) atomics ordered by explicit fences, as CUDA's
/// `__threadfence(); atomicExch(...)` does, so the fences are what order
/// the partials (memref.atomic_rmw would be acq_rel by itself and hide a
/// dropped fence).
Value KernelEmitter::flagPointer(OpBuilder &b, Location loc, Value slot) {
  Type i64 = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, flags);
  Value addr = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, slot, constIndex(b, loc, 4)));
  Value addr64 = arith::IndexCastOp::create(b, loc, i64, addr);
  return LLVM::IntToPtrOp::create(b, loc, ptrType, addr64);
}

void KernelEmitter::emitBlockBarrier(OpBuilder &b, Location loc) {
  if (role == Role::all) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // The consumers alone: the producer never reaches their barriers.
  Value id = arith::ConstantIntOp::create(b, loc, 1, 32);
  Value count = arith::ConstantIntOp::create(b, loc, consumerThreads, 32);
  NVVM::BarrierOp::create(b, loc, Type(), id, count,
                          NVVM::BarrierReductionAttr(), Value());
}

void KernelEmitter::emitSignal(OpBuilder &b, Location loc, Value slot) {
  if (role == Role::producer)
    return;
  // Every thread's partial is stored before thread 0 publishes them: the
  // barrier orders them before thread 0's release fence, which orders them
  // before the relaxed flag store.
  emitBlockBarrier(b, loc);
  scf::IfOp::create(
      b, loc, isThreadZero(b, loc), [&](OpBuilder &tb, Location tl) {
        if (!dropFence)
          LLVM::FenceOp::create(tb, tl, LLVM::AtomicOrdering::release, scope);
        Value one = arith::ConstantIntOp::create(tb, tl, 1, 32);
        LLVM::StoreOp::create(tb, tl, one, flagPointer(tb, tl, slot),
                              /*alignment=*/4, /*isVolatile=*/false,
                              /*isNonTemporal=*/false,
                              /*isInvariantGroup=*/false,
                              LLVM::AtomicOrdering::monotonic, scope);
        scf::YieldOp::create(tb, tl);
      });
}

void KernelEmitter::emitWait(OpBuilder &b, Location loc, Value slot) {
  if (dropWait || role == Role::producer)
    return;
  scf::IfOp::create(
      b, loc, isThreadZero(b, loc), [&](OpBuilder &tb, Location tl) {
        Value ptr = flagPointer(tb, tl, slot);
        scf::WhileOp::create(
            tb, tl, TypeRange{}, ValueRange{},
            [&](OpBuilder &wb, Location wl, ValueRange) {
              // An atomic read: the spin yields to other CTAs in the
              // emulator and never reads a stale cached value on a GPU.
              Value flag = LLVM::LoadOp::create(
                  wb, wl, wb.getI32Type(), ptr, /*alignment=*/4,
                  /*isVolatile=*/false, /*isNonTemporal=*/false,
                  /*isInvariant=*/false, /*isInvariantGroup=*/false,
                  LLVM::AtomicOrdering::monotonic, scope);
              Value zero = arith::ConstantIntOp::create(wb, wl, 0, 32);
              Value unset = arith::CmpIOp::create(
                  wb, wl, arith::CmpIPredicate::eq, flag, zero);
              scf::ConditionOp::create(wb, wl, unset, ValueRange{});
            },
            [&](OpBuilder &wb, Location wl, ValueRange) {
              scf::YieldOp::create(wb, wl);
            });
        // Orders the contributor's partials (released by its fence) before
        // this CTA's reads of them; the barrier passes that on to every
        // thread.
        LLVM::FenceOp::create(tb, tl, LLVM::AtomicOrdering::acquire, scope);
        scf::YieldOp::create(tb, tl);
      });
  emitBlockBarrier(b, loc);
}
