//===- KernelToGPU.cpp - ext.kernel to gpu.launch -------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Conversion/Passes.h"
#include "ext/Conversion/KernelToGPU/KernelToGPU.h"
#include "ext/Model/TileWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace ext {
#define GEN_PASS_DEF_EXTKERNELTOGPU
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

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

/// Where the fixup's data lives in the workspace: one i32 flag per slot,
/// then per fragment `slots` partial tiles, each part 16-byte aligned.
/// Sizes are attributes, or host values where the plan is made at launch.
struct WorkspaceLayout {
  OpFoldResult slots;
  OpFoldResult bytes;
  SmallVector<OpFoldResult> fragmentOffsets; // bytes, one per fragment
};

/// The element bytes of each fragment's partial tile.
SmallVector<int64_t> partialTileBytes(KernelOp kernel) {
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

/// Inlines the kernel's regions for the decomposition, and emits the fixup
/// over the workspace.
class KernelEmitter : public TileWorkEmitter {
public:
  KernelEmitter(KernelOp kernel, bool dropWait, bool dropFence,
                StringRef scope)
      : kernel(kernel), dropWait(dropWait), dropFence(dropFence),
        scope(scope) {}

  /// Views of `workspace` (memref<Bxi8>) at the builder's point, the start
  /// of a launch.
  void setWorkspace(OpBuilder &b, Location loc, Value workspace,
                    const WorkspaceLayout &layout);

  /// Under warp specialization, which role's walk this emitter builds: the
  /// body's per-CTA values (`hoisted`: its shared buffers and mbarriers,
  /// made once at the kernel's start) and the count of k-steps the role ran
  /// before the unit (`stepCounter`, a per-thread memref<index>).
  enum class Role { all, consumer, producer };
  void specialize(Role r, const IRMapping *h, Value counter,
                  int64_t consumers = 0) {
    role = r;
    hoisted = h;
    stepCounter = counter;
    consumerThreads = consumers;
    unitCounter = group = Value();
    groups = 1;
  }
  /// Ping-pong: consumer warpgroup `g` of `n` runs the units whose ordinal
  /// in the CTA's walk (`units`, a per-thread memref<index>) is g mod n.
  /// Turns pass through `order` (one mbarrier per warpgroup): a warpgroup
  /// starts a unit's main loop once the previous unit's has ended, so no
  /// warpgroup waits on a stage's full barrier more than one phase ahead
  /// (a parity wait cannot tell that phase from the one two back).
  void takeUnitsInTurn(Value units, Value g, int64_t n, Value turns) {
    unitCounter = units;
    group = g;
    groups = n;
    order = turns;
  }

  FailureOr<SmallVector<Value>> emitMainloop(OpBuilder &b, Location loc,
                                             Value tile, Value kBegin,
                                             Value kEnd) override {
    SmallVector<Value> args = coordsOf(b, loc, tile);
    args.push_back(kBegin);
    args.push_back(kEnd);
    if (role == Role::all)
      return inlineRegion(b, kernel.getBody(), args);
    FailureOr<SmallVector<Value>> frags = emitRoleMainloop(b, loc, args);
    // The role's pipeline moves on by the unit's k-steps.
    Value before = memref::LoadOp::create(b, loc, stepCounter);
    Value steps = arith::SubIOp::create(b, loc, kEnd, kBegin);
    memref::StoreOp::create(b, loc,
                            arith::AddIOp::create(b, loc, before, steps),
                            stepCounter);
    return frags;
  }

  LogicalResult emitEpilogue(OpBuilder &b, Location loc, Value tile,
                             ValueRange fragments) override {
    if (role == Role::producer)
      return success();
    // A cluster's tiles past the grid's edge computed zeros: nothing to
    // store.
    std::optional<OpBuilder::InsertionGuard> inGrid;
    SmallVector<Value> args = coordsOf(b, loc, tile);
    if (kernel.getCluster()) {
      SmallVector<OpFoldResult> counts = tileCounts(b, kernel);
      Value inside;
      for (unsigned d = counts.size() - 2; d < counts.size(); ++d) {
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            args[d],
                                            indexValue(b, loc, counts[d]));
        inside = inside ? arith::AndIOp::create(b, loc, inside, below)
                              .getResult()
                        : below;
      }
      auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      inGrid.emplace(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    // Ping-pong: the epilogue of the unit the warpgroup ran.
    std::optional<OpBuilder::InsertionGuard> inTurn;
    if (unitCounter) {
      auto ifOp = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
      inTurn.emplace(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    llvm::append_range(args, fragments);
    return success(succeeded(inlineRegion(b, kernel.getEpilogue(), args)));
  }

  LogicalResult emitStorePartial(OpBuilder &b, Location loc, Value slot,
                                 ValueRange fragments) override;
  LogicalResult emitCombinePartial(OpBuilder &b, Location loc, Value slot,
                                   ValueRange fragments) override;
  void emitSignal(OpBuilder &b, Location loc, Value slot) override;
  void emitWait(OpBuilder &b, Location loc, Value slot) override;

private:
  /// The coordinates of the decomposition's tile `tile`: with a cluster, a
  /// cluster tile, of which the CTA of rank r runs tile (r mod CM, r / CM).
  SmallVector<Value> coordsOf(OpBuilder &b, Location loc, Value tile) {
    SmallVector<OpFoldResult> counts = tileCounts(b, kernel);
    std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster();
    if (!cluster)
      return delinearizeTile(b, loc, tile, counts, kernel.getRaster(),
                             kernel.getSwizzle());
    unsigned rank = counts.size();
    SmallVector<OpFoldResult> clusterCounts(counts);
    for (unsigned i = 0; i < 2; ++i)
      clusterCounts[rank - 2 + i] =
          ceilDivFolded(b, loc, counts[rank - 2 + i], (*cluster)[i]);
    SmallVector<Value> coords = delinearizeTile(
        b, loc, tile, clusterCounts, kernel.getRaster(), kernel.getSwizzle());
    Value ctaRank = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::x);
    Value cm = constIndex(b, loc, (*cluster)[0]);
    Value inCluster[2] = {arith::RemUIOp::create(b, loc, ctaRank, cm),
                          arith::DivUIOp::create(b, loc, ctaRank, cm)};
    for (unsigned i = 0; i < 2; ++i)
      coords[rank - 2 + i] = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, coords[rank - 2 + i],
                                constIndex(b, loc, (*cluster)[i])),
          inCluster[i]);
    return coords;
  }

  FailureOr<SmallVector<Value>> inlineRegion(OpBuilder &b, Region &region,
                                             ValueRange args) {
    Block &block = region.front();
    IRMapping mapping;
    mapping.map(block.getArguments(), args);
    for (Operation &op : block.without_terminator())
      b.clone(op, mapping);
    auto yield = cast<KernelYieldOp>(block.getTerminator());
    return llvm::map_to_vector(yield.getFragments(), [&](Value v) {
      return mapping.lookupOrDefault(v);
    });
  }

  /// Partial tile `slot` of fragment `i`, shaped as the fragment.
  Value slotView(OpBuilder &b, Location loc, unsigned i, Value slot);
  /// The allocation of a fragment the main loop returned: its thread
  /// distribution and layout, which the partial's copies must share.
  FailureOr<AllocFragmentOp> allocOf(Value fragment, Location loc);
  Value isThreadZero(OpBuilder &b, Location loc) {
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                 constIndex(b, loc, 0));
  }

  Value flagPointer(OpBuilder &b, Location loc, Value slot);
  /// A barrier of the threads that run the fixup: the block's, or under
  /// warp specialization the consumers' (bar.sync 1, consumers).
  void emitBlockBarrier(OpBuilder &b, Location loc);

  /// The body for one role: the consumers' without the producer's region,
  /// or the producer's region alone with the body values it uses. Both
  /// read the hoisted per-CTA values and the unit's pipeline base.
  FailureOr<SmallVector<Value>> emitRoleMainloop(OpBuilder &b, Location loc,
                                                 ValueRange args);

  KernelOp kernel;
  Role role = Role::all;
  const IRMapping *hoisted = nullptr;
  Value stepCounter;
  int64_t consumerThreads = 0;
  Value unitCounter, group, mine, order;
  int64_t groups = 1;
  bool dropWait, dropFence;
  /// The fixup protocol's synchronization scope: the GPU's (the CTAs that
  /// exchange partials run on one device), not the system's.
  StringRef scope;
  Value flags;                // memref<slots x i32>
  SmallVector<Value> partials; // per fragment: memref<slots x tile shape>
};

FailureOr<SmallVector<Value>>
KernelEmitter::emitRoleMainloop(OpBuilder &b, Location loc, ValueRange args) {
  Block &block = kernel.getBody().front();
  IRMapping mapping;
  for (auto [from, to] : hoisted->getValueMap())
    mapping.map(from, to);
  mapping.map(block.getArguments(), args);
  Value base = memref::LoadOp::create(b, loc, stepCounter);
  WarpSpecializeOp producer;
  for (Operation &op : block)
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      producer = ws;
  auto clone = [&](Operation &op) {
    if (auto pb = dyn_cast<PipelineBaseOp>(op)) {
      mapping.map(pb.getResult(), base);
      return;
    }
    if (!llvm::all_of(op.getResults(),
                      [&](Value r) { return mapping.contains(r); }) ||
        op.getNumResults() == 0)
      b.clone(op, mapping);
  };
  if (role == Role::consumer) {
    std::optional<OpBuilder::InsertionGuard> inTurn;
    if (unitCounter) {
      // The fragments outside the turn's branch (the epilogue's branch
      // reads them), everything else in it.
      for (Operation &op : block)
        if (isa<AllocFragmentOp>(op))
          clone(op);
      Value ordinal = memref::LoadOp::create(b, loc, unitCounter);
      Value one = constIndex(b, loc, 1);
      memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, ordinal, one),
                              unitCounter);
      Value turn = arith::RemUIOp::create(b, loc, ordinal,
                                          constIndex(b, loc, groups));
      mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, turn,
                                   group);
      auto ifOp = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
      inTurn.emplace(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      // The warpgroup's j-th turn waits for the j-th arrival on its order
      // barrier (the (j+1)-th past warpgroup 0, whose first turn is free).
      Value j = arith::DivUIOp::create(b, loc, ordinal,
                                       constIndex(b, loc, groups));
      Value odd = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::RemUIOp::create(b, loc, j, constIndex(b, loc, 2)),
          constIndex(b, loc, 0));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          group, constIndex(b, loc, 0));
      nvgpu::MBarrierTryWaitParityOp::create(
          b, NameLoc::get(b.getStringAttr("wait for the warpgroup's turn"), loc),
          order, arith::XOrIOp::create(b, loc, odd, first),
          constIndex(b, loc, 10000000), group);
    }
    for (Operation &op : block.without_terminator())
      if (&op != producer.getOperation() &&
          !(unitCounter && isa<AllocFragmentOp>(op)))
        clone(op);
    if (unitCounter) {
      // The main loop ends: the next warpgroup's turn.
      Location at = NameLoc::get(b.getStringAttr("pass the turn on"), loc);
      Value tid = gpu::ThreadIdOp::create(b, at, gpu::Dimension::x);
      Value leader = arith::CmpIOp::create(
          b, at, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, at, tid, constIndex(b, at, 128)),
          constIndex(b, at, 0));
      Value next = arith::RemUIOp::create(
          b, at, arith::AddIOp::create(b, at, group, constIndex(b, at, 1)),
          constIndex(b, at, groups));
      scf::IfOp::create(b, at, leader, [&](OpBuilder &tb, Location tl) {
        nvgpu::MBarrierArriveOp::create(
            tb, tl, nvgpu::MBarrierTokenType::get(tb.getContext()), order,
            next);
        scf::YieldOp::create(tb, tl);
      });
    }
    auto yield = cast<KernelYieldOp>(block.getTerminator());
    return llvm::map_to_vector(yield.getFragments(), [&](Value v) {
      return mapping.lookupOrDefault(v);
    });
  }
  // The producer: the body's ops its region reads (index math of the
  // tile's coordinates), then the region.
  SetVector<Value> used;
  getUsedValuesDefinedAbove(producer.getRegion(), used);
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist(used.begin(), used.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &block || mapping.contains(def->getResult(0)) ||
        !needed.insert(def).second)
      continue;
    if (!isPure(def) && !isa<PipelineBaseOp>(def))
      return emitError(def->getLoc())
             << "the producer warpgroup's part of the work unit reads this "
                "op's result, which only the consumers compute";
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : block.without_terminator())
    if (needed.contains(&op))
      clone(op);
  for (Operation &op : producer.getRegion().front())
    b.clone(op, mapping);
  return SmallVector<Value>();
}

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
TileComputeOp createFragmentCompute(OpBuilder &b, Location loc,
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

/// Registers per thread of a warp-specialized CTA's roles: the producer
/// warpgroup keeps 40, the consumers share what that frees of the CTA's
/// registers at launch (the kernel's cap, the block's `registers` over the
/// CTA's threads, which ptxas allocates in a kernel that sets its
/// registers).
std::pair<int64_t, int64_t> roleRegisters(int64_t threads, int64_t consumers,
                                          int64_t registers) {
  constexpr int64_t producer = 40;
  auto multipleOf8 = [](int64_t r) { return r / 8 * 8; };
  int64_t atLaunch = std::min<int64_t>(255, registers / threads);
  int64_t pool = multipleOf8(atLaunch) * threads;
  int64_t consumer = multipleOf8((pool - producer * (threads - consumers)) /
                                 consumers);
  return {producer, std::min<int64_t>(consumer, 256)};
}

/// barrier.cluster.arrive and .wait of every thread of the cluster.
void emitClusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

/// The main launch's body of a warp-specialized kernel: the per-CTA values
/// and barrier initialization, then one branch per role (the form under
/// which ptxas honors setmaxnreg), each walking the CTA's work units.
LogicalResult
emitSpecializedRoles(OpBuilder &b, Location loc, KernelOp kernel,
                     WarpSpecializeOp ws, KernelEmitter &emitter,
                     const DeviceFacts &device,
                     function_ref<LogicalResult(OpBuilder &)> walk) {
  Block &body = kernel.getBody().front();
  int64_t threads = kernel.getThreads();
  int64_t consumers = threads - ws.getProducerThreads();
  IRMapping hoisted;
  for (Operation &op : body)
    if (isa<AllocSharedOp, nvgpu::MBarrierCreateOp>(op))
      b.clone(op, hoisted);
  bool pingpong = ws.getPingpong();
  bool clustered = kernel.getClusterSize() > 1;
  int64_t groups = consumers / 128;
  // Ping-pong: the consumer warpgroups' turns, one barrier each.
  Value order;
  if (pingpong)
    order = nvgpu::MBarrierCreateOp::create(
        b, loc,
        nvgpu::MBarrierGroupType::get(
            b.getContext(),
            gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup),
            groups));
  Value full = hoisted.lookup(ws.getFull()), empty = hoisted.lookup(ws.getEmpty());
  int64_t stages =
      cast<nvgpu::MBarrierGroupType>(ws.getFull().getType()).getNumBarriers();
  Location initLoc = NameLoc::get(
      b.getStringAttr("mbarriers of the warp-specialized pipeline"), loc);
  Value tid = gpu::ThreadIdOp::create(b, initLoc, gpu::Dimension::x);
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  Value first = arith::CmpIOp::create(b, initLoc, arith::CmpIPredicate::eq, tid,
                                      c(0));
  scf::IfOp::create(b, initLoc, first, [&](OpBuilder &tb, Location tl) {
    for (int64_t g = 0; pingpong && g < groups; ++g)
      nvgpu::MBarrierInitOp::create(tb, tl, order, c(1), c(g), Value());
    // Full: the producer's expect_tx; empty: one arrival per consumer
    // warpgroup that reads the stage (ping-pong: the one).
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(tb, tl, full, c(1), c(s), Value());
      nvgpu::MBarrierInitOp::create(
          tb, tl, empty,
          c((pingpong ? 1 : consumers / 128) * ws.getReleaseCtas()), c(s),
          Value());
    }
    // Peers arrive on these barriers and multicast into them: the inits
    // are made visible to the cluster before the cluster barrier below.
    if (clustered)
      NVVM::FenceMbarrierInitOp::create(tb, tl);
    scf::YieldOp::create(tb, tl);
  });
  gpu::BarrierOp::create(b, initLoc);
  if (clustered)
    emitClusterBarrier(b, initLoc);
  // Each thread counts the k-steps its role ran (and with ping-pong the
  // units): allocas at the start of the kernel's entry block, which LLVM
  // promotes to registers.
  Value counter, units;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(b.getInsertionBlock());
    auto type = MemRefType::get({}, b.getIndexType());
    counter = memref::AllocaOp::create(b, loc, type);
    if (pingpong)
      units = memref::AllocaOp::create(b, loc, type);
  }
  memref::StoreOp::create(b, loc, c(0), counter);
  if (pingpong)
    memref::StoreOp::create(b, loc, c(0), units);

  // Warp specialization is sm_90a's; without a chip, a block's registers
  // are the model's default (NVIDIA's 64K).
  int64_t registers = device.chip ? device.chip->registersPerBlock
                                  : ChipInfo().registersPerBlock;
  auto [producerRegs, consumerRegs] =
      roleRegisters(threads, consumers, registers);
  Value isConsumer = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, tid, c(consumers));
  auto roles = scf::IfOp::create(b, loc, isConsumer, /*withElse=*/true);
  roles->setAttr(kRoleThreadsAttrName,
                 b.getI64IntegerAttr(pingpong ? 128 : consumers));
  if (pingpong)
    roles->setAttr(kRoleLocalIdsAttrName, b.getUnitAttr());
  LogicalResult result = success();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    NVVM::SetMaxRegisterOp::create(b, loc, producerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
    // One thread of the producer warpgroup issues the copies; the others
    // are done.
    Value issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                         c(consumers));
    auto ifIssuer = scf::IfOp::create(b, loc, issuer, /*withElse=*/false);
    b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
    emitter.specialize(KernelEmitter::Role::producer, &hoisted, counter);
    result = walk(b);
  }
  if (failed(result))
    return failure();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(roles.thenBlock()->getTerminator());
  NVVM::SetMaxRegisterOp::create(b, loc, consumerRegs,
                                 NVVM::SetMaxRegisterAction::increase);
  emitter.specialize(KernelEmitter::Role::consumer, &hoisted, counter,
                     consumers);
  if (pingpong) {
    // The warpgroup index broadcast from lane 0 (shfl.sync): ptxas then
    // knows the turn's branch uniform in each warp; otherwise it counts the
    // wgmmas under it as divergent and serializes them (C7520).
    Value wg = arith::IndexCastOp::create(
        b, loc, b.getI32Type(), arith::DivUIOp::create(b, loc, tid, c(128)));
    Value uniform =
        gpu::ShuffleOp::create(b, loc, wg, arith::ConstantIntOp::create(b, loc, 0, 32),
                               arith::ConstantIntOp::create(b, loc, 32, 32),
                               gpu::ShuffleMode::IDX)
            .getShuffleResult();
    emitter.takeUnitsInTurn(
        units, arith::IndexCastOp::create(b, loc, b.getIndexType(), uniform),
        groups, order);
  }
  result = walk(b);
  emitter.specialize(KernelEmitter::Role::all, nullptr, Value());
  // No CTA leaves while a peer may still arrive on its barriers or
  // multicast into its shared memory.
  if (clustered) {
    b.setInsertionPointAfter(roles);
    emitClusterBarrier(
        b, NameLoc::get(b.getStringAttr("cluster barrier before exit"), loc));
  }
  return result;
}

} // namespace

FailureOr<gpu::LaunchOp>
ext::lowerKernelToGPU(RewriterBase &rw, KernelOp kernel,
                      const KernelToGPUOptions &options) {
  Location loc = kernel.getLoc();
  TileDecompositionAttrInterface decomposition = kernel.getDecomposition();
  const DeviceFacts &device = options.device;
  // With a cluster the decomposition deals out cluster tiles to clusters:
  // its grid and SM count are in clusters.
  int64_t clusterSize = kernel.getClusterSize();
  if (auto persistent = dyn_cast<PersistentAttr>(decomposition);
      persistent && clusterSize > 1 && persistent.getSms())
    decomposition = PersistentAttr::get(
        rw.getContext(), persistent.getGrid(),
        std::max<int64_t>(1, persistent.getSms() / clusterSize));
  int64_t numTiles = kernel.getNumWorkTiles(), iters = kernel.getIters();
  bool atLaunch = kernel.plansAtLaunch();
  if (!atLaunch &&
      failed(decomposition.verifyProblem(
          [&]() { return kernel.emitOpError(); }, numTiles, iters, device)))
    return failure();
  // LLVM's names for a device-wide scope: NVPTX's "device" (PTX .gpu),
  // AMDGPU's "agent"; without a chip, the system's.
  StringRef scope = !device.chip          ? StringRef()
                    : device.chip->isNvidia() ? StringRef("device")
                                              : StringRef("agent");
  KernelEmitter emitter(kernel, options.dropFixupWait, options.dropFixupFence,
                        scope);
  WarpSpecializeOp producer;
  for (Operation &op : kernel.getBody().front())
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      producer = ws;
  rw.setInsertionPoint(kernel);
  Value one = constIndex(rw, loc, 1);
  Value block = constIndex(rw, loc, kernel.getThreads());

  auto emitLaunchOver = [&](Value gridV, Value workspace,
                            const WorkspaceLayout *layout,
                            function_ref<LogicalResult(OpBuilder &, Value)> body)
      -> FailureOr<gpu::LaunchOp> {
    Value clusterV = clusterSize > 1 ? constIndex(rw, loc, clusterSize)
                                     : Value();
    if (clusterV)
      gridV = indexValue(rw, loc,
                         mulFolded(rw, loc, gridV, rw.getIndexAttr(clusterSize)));
    auto launch = gpu::LaunchOp::create(
        rw, loc, gridV, one, one, block, one, one, Value(), Type(),
        ValueRange(), TypeRange(), TypeRange(), clusterV,
        clusterV ? one : Value(), clusterV ? one : Value());
    // LaunchOp's builder gives the body the arguments of a launch without
    // clusters; one with clusters also has their ids and sizes.
    Block &launchBody = launch.getBody().front();
    while (launchBody.getNumArguments() <
           launch.getNumConfigRegionAttributes())
      launchBody.addArgument(rw.getIndexType(), loc);
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&launch.getBody().front());
    if (workspace) {
      emitter.setWorkspace(rw, loc, workspace, *layout);
      // Its size, or -1 where the host computes it at launch.
      std::optional<int64_t> bytes = getConstantIntValue(layout->bytes);
      launch->setAttr("ext.workspace_bytes",
                      rw.getI64IntegerAttr(bytes ? *bytes : -1));
    }
    Value blockId = clusterV
                        ? gpu::ClusterIdOp::create(rw, loc, gpu::Dimension::x)
                              .getResult()
                        : gpu::BlockIdOp::create(rw, loc, gpu::Dimension::x)
                              .getResult();
    if (failed(body(rw, blockId)))
      return failure();
    gpu::TerminatorOp::create(rw, loc);
    return launch;
  };

  // The plan: made here from static counts, or by host code at launch from
  // the tile counts and iterations the host computed (an axis of dynamic
  // extent).
  Value grid, reductionGrid;
  OpFoldResult slots;
  std::optional<LaunchPlan> launchPlan;
  if (atLaunch) {
    OpFoldResult tiles = rw.getIndexAttr(1);
    SmallVector<OpFoldResult> counts = tileCounts(rw, kernel);
    if (std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster())
      for (unsigned i = 0; i < 2; ++i)
        counts[counts.size() - 2 + i] = ceilDivFolded(
            rw, loc, counts[counts.size() - 2 + i], (*cluster)[i]);
    for (OpFoldResult count : counts)
      tiles = mulFolded(rw, loc, tiles, count);
    Value tilesV = indexValue(rw, loc, tiles);
    double cost = kernel.getFixupCost()
                      ? kernel.getFixupCost()->convertToDouble()
                      : tilework::CostModel().partialCost;
    FailureOr<LaunchPlan> plan =
        decomposition.emitLaunchPlan(rw, loc, tilesV, kernel.getMixedIters(),
                                     device, cost);
    if (failed(plan))
      return failure();
    launchPlan = std::move(*plan);
    // The plan's index math stays in 64 bits for tile counts below 2^31
    // (the decomposition checked the rest when it planned), and a launch
    // takes at most 2^31 - 1 CTAs.
    Value limit =
        constIndex(rw, loc, std::numeric_limits<int32_t>::max());
    auto atMostLimit = [&](Value v) {
      return arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ule, v,
                                   limit)
          .getResult();
    };
    SmallVector<SizeCheck> checks;
    std::string what;
    llvm::raw_string_ostream(what) << "ext.kernel with decomposition "
                                   << decomposition << ": ";
    checks.push_back({atMostLimit(tilesV),
                      what + "more than 2^31 - 1 tiles at launch"});
    checks.push_back({atMostLimit(launchPlan->grid),
                      what + "more than 2^31 - 1 CTAs at launch"});
    for (auto &[holds, message] : launchPlan->checks)
      checks.push_back({holds, message});
    guardWithSizeChecks(rw, loc, checks);
    grid = launchPlan->grid;
    reductionGrid = launchPlan->reductionGrid;
    if (launchPlan->numPartials)
      slots = launchPlan->numPartials;
  } else {
    // 0 when the decomposition cannot size its grid (no SM count).
    int64_t numBlocks = decomposition.getNumBlocks(numTiles, iters, device);
    if (numBlocks == 0)
      return kernel.emitOpError()
             << "decomposition " << decomposition
             << " needs the SM count: give it `sms = N`, or the chip to "
                "ext-apply-schedule or ext-kernel-to-gpu";
    if (numBlocks < 1 || numBlocks > std::numeric_limits<int32_t>::max())
      return kernel.emitOpError() << "decomposition " << decomposition
                                  << " asks for " << numBlocks << " CTAs";
    grid = constIndex(rw, loc, numBlocks);
    if (int64_t n = decomposition.getNumPartials(numTiles, iters, device))
      slots = rw.getIndexAttr(n);
    if (int64_t n =
            decomposition.getNumReductionBlocks(numTiles, iters, device))
      reductionGrid = constIndex(rw, loc, n);
  }

  Value workspace;
  std::optional<WorkspaceLayout> layout;
  if (slots) {
    if (std::optional<int64_t> n = getConstantIntValue(slots)) {
      FailureOr<WorkspaceLayout> l = layoutWorkspace(kernel, *n);
      if (failed(l))
        return kernel.emitOpError() << "decomposition " << decomposition
                                    << " needs a workspace of " << *n
                                    << " partial tiles, beyond 2^40 bytes";
      layout = *l;
    } else {
      layout = layoutWorkspaceAtLaunch(rw, loc, kernel, cast<Value>(slots));
    }
    // Device memory, allocated and zeroed on one stream that the host then
    // waits for: the asynchronous forms, which gpu-to-llvm lowers to the
    // runtime's calls (the synchronous ones it leaves alone) and the CPU
    // emulation runs in order.
    std::optional<int64_t> bytes = getConstantIntValue(layout->bytes);
    SmallVector<Value> byteSize, wordSize;
    if (!bytes) {
      byteSize.push_back(cast<Value>(layout->bytes));
      wordSize.push_back(arith::DivUIOp::create(rw, loc, byteSize[0],
                                                constIndex(rw, loc, 4)));
    }
    auto type = MemRefType::get({bytes ? *bytes : ShapedType::kDynamic},
                                rw.getI8Type());
    Type tokenType = gpu::AsyncTokenType::get(rw.getContext());
    Value start = gpu::WaitOp::create(rw, loc, tokenType, ValueRange{})
                      .getAsyncToken();
    auto alloc = gpu::AllocOp::create(rw, loc, type, tokenType,
                                      ValueRange{start}, byteSize,
                                      ValueRange{});
    workspace = alloc.getMemref();
    // Flags start at zero (and partials, which every reader overwrites
    // first, too): a memset of i32 words, which every runtime supports.
    Value words = memref::ViewOp::create(
        rw, loc,
        MemRefType::get({bytes ? *bytes / 4 : ShapedType::kDynamic},
                        rw.getI32Type()),
        workspace, constIndex(rw, loc, 0), wordSize);
    Value zeroed =
        gpu::MemsetOp::create(rw, loc, tokenType,
                              ValueRange{alloc.getAsyncToken()}, words,
                              arith::ConstantIntOp::create(rw, loc, 0, 32))
            .getAsyncToken();
    gpu::WaitOp::create(rw, loc, Type(), ValueRange{zeroed});
  }

  FailureOr<gpu::LaunchOp> main = emitLaunchOver(
      grid, workspace, layout ? &*layout : nullptr,
      [&](OpBuilder &b, Value blockId) {
        auto walk = [&](OpBuilder &wb) {
          if (launchPlan)
            return decomposition.emitLaunchWorkUnits(wb, loc, blockId,
                                                     *launchPlan, emitter);
          return decomposition.emitWorkUnits(wb, loc, blockId, numTiles,
                                             iters, device, emitter);
        };
        if (producer)
          return emitSpecializedRoles(b, loc, kernel, producer, emitter,
                                      device, walk);
        return walk(b);
      });
  if (failed(main))
    return kernel.emitOpError() << "decomposition " << decomposition
                                << " could not emit its work units";
  if (reductionGrid) {
    FailureOr<gpu::LaunchOp> reduction = emitLaunchOver(
        reductionGrid, workspace, layout ? &*layout : nullptr,
        [&](OpBuilder &b, Value blockId) {
          if (launchPlan)
            return decomposition.emitLaunchReductionUnits(
                b, loc, blockId, *launchPlan, emitter);
          return decomposition.emitReductionUnits(b, loc, blockId, numTiles,
                                                  iters, device, emitter);
        });
    if (failed(reduction))
      return kernel.emitOpError() << "decomposition " << decomposition
                                  << " could not emit its reduction";
  }
  if (workspace) {
    Type tokenType = gpu::AsyncTokenType::get(rw.getContext());
    Value start = gpu::WaitOp::create(rw, loc, tokenType, ValueRange{})
                      .getAsyncToken();
    Value freed = gpu::DeallocOp::create(rw, loc, tokenType,
                                         ValueRange{start}, workspace)
                      .getAsyncToken();
    gpu::WaitOp::create(rw, loc, Type(), ValueRange{freed});
  }
  rw.eraseOp(kernel);
  return *main;
}

namespace {

struct ExtKernelToGPUPass
    : ext::impl::ExtKernelToGPUBase<ExtKernelToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    FailureOr<DeviceFacts> device =
        resolveDevice(getOperation(), "ext-kernel-to-gpu", chip, sms);
    if (failed(device))
      return signalPassFailure();
    KernelToGPUOptions options;
    options.device = *device;
    options.dropFixupWait = dropFixupWait;
    options.dropFixupFence = dropFixupFence;
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp k) { kernels.push_back(k); });
    IRRewriter rw(&getContext());
    for (KernelOp k : kernels)
      if (failed(lowerKernelToGPU(rw, k, options)))
        return signalPassFailure();
  }
};

} // namespace
