//===- KernelEmitter.h - ext.kernel's regions walked by a decomposition -*- C++ -*-===//
//
// What the files of ext-kernel-to-gpu share: the tile arithmetic of a
// launch, the fixup workspace's layout, and the emitter that inlines an
// ext.kernel's regions for each work unit a decomposition walks and emits
// its fixup (KernelEmitter.cpp); the roles of a warp-specialized kernel
// (WarpSpecializedRoles.cpp). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_CONVERSION_KERNELTOGPU_KERNELEMITTER_H
#define EXT_LIB_CONVERSION_KERNELTOGPU_KERNELEMITTER_H

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace ext {
namespace kernel_to_gpu {

using namespace mlir;

/// A tile count (or a product of them): a constant, or a value where the
/// grid is known only at run time. Constants fold, so a static grid's IR
/// has one constant per count or product.
Value indexValue(OpBuilder &b, Location loc, OpFoldResult x);
OpFoldResult mulFolded(OpBuilder &b, Location loc, OpFoldResult x,
                       OpFoldResult y);
OpFoldResult ceilDivFolded(OpBuilder &b, Location loc, OpFoldResult x,
                           int64_t y);

/// Tile coordinates of linear tile index `tile`. Leading tile dimensions
/// (batches) are outermost; the last two are walked in `raster` order in
/// groups of `swizzle` rows (row raster) or columns (col raster), so that
/// consecutive CTAs share input panels in L2.
SmallVector<Value> delinearizeTile(OpBuilder &b, Location loc, Value tile,
                                   ArrayRef<OpFoldResult> tiles,
                                   RasterOrder raster, int64_t swizzle);

/// The kernel's tile counts: constants, and the values of the dynamic ones.
SmallVector<OpFoldResult> tileCounts(OpBuilder &b, KernelOp kernel);

/// Where the fixup's data lives in the workspace: one i32 flag per slot,
/// then per fragment `slots` partial tiles, each part 16-byte aligned.
/// Sizes are attributes, or host values where the plan is made at launch.
struct WorkspaceLayout {
  OpFoldResult slots;
  OpFoldResult bytes;
  SmallVector<OpFoldResult> fragmentOffsets; // bytes, one per fragment
};

/// The layout for `slots` known only at launch, as host code. The launch
/// checks slots < 2^31, and a partial tile is at most a block's registers,
/// so no product overflows.
WorkspaceLayout layoutWorkspaceAtLaunch(OpBuilder &b, Location loc,
                                        KernelOp kernel, Value slots);

/// The layout for a static slot count; failure where its bytes overflow.
FailureOr<WorkspaceLayout> layoutWorkspace(KernelOp kernel, int64_t slots);

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


/// The main launch's body of a warp-specialized kernel: the per-CTA values
/// and barrier initialization, then one branch per role (the form under
/// which ptxas honors setmaxnreg), each walking the CTA's work units
/// (WarpSpecializedRoles.cpp).
LogicalResult
emitSpecializedRoles(OpBuilder &b, Location loc, KernelOp kernel,
                     WarpSpecializeOp ws, KernelEmitter &emitter,
                     const DeviceFacts &device,
                     function_ref<LogicalResult(OpBuilder &)> walk);

} // namespace kernel_to_gpu
} // namespace ext

#endif // EXT_LIB_CONVERSION_KERNELTOGPU_KERNELEMITTER_H
