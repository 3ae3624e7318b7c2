//===- TileLoopBarriers.cpp - barriers at the ends of loop iterations -----===//
//
// The last step of ext-tile-ops-to-threads, once every tile op of a launch
// is lowered: a barrier at the end of each block-uniform loop whose next
// iteration may touch shared memory that this iteration's threads still
// use, unordered by any barrier in between.
//
// The lowerings place a barrier after every group of writes other threads
// read next, and fenceCopyLoops one at the end of the innermost scf.for
// around each such write. That covers a GEMM's k-loop (its copies and
// their readers are in the same scf.for), but not a loop that runs the
// CTA's work units: Stream-K's is an scf.while, and a fused kernel's
// shared copy is read after the k-loop, or without one (a softmax whose
// compute_at producers read the row's shared copy, an epilogue's staging
// tile). Rather than ask each emitter which loop it is in, this step looks
// at what the loops do: for each scf.for and scf.while of the launch that
// holds a barrier of its own threads (so every one of them runs its
// iterations: no barrier is ever placed under thread-dependent control
// flow), it collects the shared-memory accesses an iteration may leave
// unordered at its end (those after its last barrier on some path; an
// inner loop or a branch may run none of its barriers) and checks them
// against those the next iteration may make before its first barrier.
// Two on one buffer (or on a buffer it cannot name), one a write, need a
// barrier on the back edge. A CTA that runs one work unit has no loop
// around it and gets none.
//
// Only accesses to the same buffer are this step's: buffers that later
// share bytes get their barriers from ext-gpu-reuse-shared-memory.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

#include <set>
#include <tuple>

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

// A namespace of its own: the unity build compiles this file with others.
namespace {
namespace loop_hazards {

/// A shared-memory access: the buffer (null when it cannot be named), a
/// write or a read, and whether an earlier iteration of the loop under
/// study made it.
using Access = std::tuple<const void *, bool, bool>;
using Pending = std::set<Access>;

bool isBarrier(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::BarrierOp>(op);
}

bool isSharedMemoryType(Type t) {
  if (auto m = dyn_cast<MemRefType>(t))
    return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(m);
  if (auto p = dyn_cast<LLVM::LLVMPointerType>(t))
    return p.getAddressSpace() ==
           static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
  return false;
}

/// The buffers `v` may view: through views and casts to an allocation or a
/// block argument (a workgroup attribution); through both sides of a select
/// (a pipelined k-loop's stage tiles). Null for anything else.
void rootsOf(Value v, SmallVectorImpl<const void *> &roots, int depth = 0) {
  while (true) {
    Operation *def = v.getDefiningOp();
    if (!def) {
      // A workgroup attribution of the launch; a loop's or branch's block
      // argument could be any buffer.
      auto arg = cast<BlockArgument>(v);
      bool attribution = isa_and_nonnull<gpu::LaunchOp>(
                             arg.getOwner()->getParentOp()) &&
                         arg.getOwner()->isEntryBlock();
      roots.push_back(attribution ? v.getAsOpaquePointer() : nullptr);
      return;
    }
    if (depth > 16) {
      roots.push_back(nullptr);
      return;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def);
        view && view.getViewDest() == v) {
      v = view.getViewSource();
      continue;
    }
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      rootsOf(select.getTrueValue(), roots, depth + 1);
      rootsOf(select.getFalseValue(), roots, depth + 1);
      return;
    }
    if (isa<AllocSharedOp, memref::AllocOp, memref::AllocaOp>(def)) {
      roots.push_back(v.getAsOpaquePointer());
      return;
    }
    roots.push_back(nullptr);
    return;
  }
}

/// `op`'s own accesses to shared memory (not those of its regions): its
/// declared effects; an operand it takes without declaring what it does
/// with it counts as read and written (a descriptor a tensor-core op
/// reads through, a TMA copy's target).
void accessesOf(Operation *op, SmallVectorImpl<Access> &out) {
  // Ops that pass a buffer on without touching it (a region's results and
  // its uses are what count).
  if (isa<ViewLikeOpInterface, memref::DimOp, memref::ExtractStridedMetadataOp,
          memref::DeallocOp, arith::SelectOp, scf::YieldOp, scf::ConditionOp>(
          op))
    return;
  auto add = [&](Value v, bool write) {
    SmallVector<const void *> roots;
    rootsOf(v, roots);
    for (const void *r : roots)
      out.push_back({r, write, false});
  };
  llvm::SmallDenseSet<Value, 4> declared;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list) {
      Value v = e.getValue();
      if (!v || !isSharedMemoryType(v.getType()))
        continue;
      declared.insert(v);
      if (isa<MemoryEffects::Read>(e.getEffect()))
        add(v, false);
      else if (isa<MemoryEffects::Write>(e.getEffect()))
        add(v, true);
    }
  }
  for (Value v : op->getOperands())
    if (isSharedMemoryType(v.getType()) && !declared.contains(v)) {
      add(v, false);
      add(v, true);
    }
}

bool conflicts(const Access &a, const Access &b) {
  const void *ra = std::get<0>(a), *rb = std::get<0>(b);
  return (std::get<1>(a) || std::get<1>(b)) && (ra == rb || !ra || !rb);
}

/// Walks blocks from `pending` (the accesses that may be unordered with
/// what comes next), leaving in it those unordered at the block's end;
/// `check` sees every access with the pending ones before it. A loop nest
/// is walked about twice per level: past `budget` ops in all, the walk
/// gives up (`exhausted`) and the caller assumes the worst.
struct Walker {
  llvm::function_ref<void(const Access &, const Pending &)> check;
  int64_t budget = 1 << 20;
  bool exhausted = false;

  void walkBlock(Block &block, Pending &pending) {
    for (Operation &op : block) {
      if (--budget < 0) {
        exhausted = true;
        return;
      }
      walkOp(&op, pending);
    }
  }

  void walkOp(Operation *op, Pending &pending) {
    if (isBarrier(op)) {
      pending.clear();
      return;
    }
    SmallVector<Access> own;
    accessesOf(op, own);
    for (const Access &a : own) {
      check(a, pending);
      pending.insert(a);
    }
    if (op->getNumRegions() == 0)
      return;
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Pending other = pending;
      walkBlock(*ifOp.thenBlock(), pending);
      if (Block *elseBlock = ifOp.elseBlock())
        walkBlock(*elseBlock, other);
      pending.insert(other.begin(), other.end());
      return;
    }
    // A loop, or any other op with regions: its blocks may run any number
    // of times (none included), in any order.
    while (!exhausted) {
      Pending next = pending;
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          Pending state = pending;
          walkBlock(block, state);
          next.insert(state.begin(), state.end());
        }
      if (next == pending)
        return;
      pending = std::move(next);
    }
  }
};

/// An iteration of `loop`: the body of an scf.for; an scf.while's
/// condition block, then its body.
SmallVector<Block *, 2> iterationBlocks(Operation *loop) {
  if (auto w = dyn_cast<scf::WhileOp>(loop))
    return {w.getBeforeBody(), w.getAfterBody()};
  return {cast<scf::ForOp>(loop).getBody()};
}

/// The op with kRoleThreadsAttrName whose role region holds `op`, if any:
/// barriers there are the role's threads' alone.
Operation *roleOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<gpu::LaunchOp>(p);
       p = p->getParentOp())
    if (p->hasAttr(kRoleThreadsAttrName) &&
        p->getRegion(0).isAncestor(op->getParentRegion()))
      return p;
  return nullptr;
}

/// Whether every thread that reaches `loop` runs all its iterations: it
/// holds a barrier of those threads.
bool isUniformLoop(Operation *loop) {
  Operation *role = roleOf(loop);
  WalkResult r = loop->walk([&](Operation *op) {
    if (isBarrier(op) && roleOf(op) == role)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// Whether an iteration of `loop` may touch what the previous one left
/// unordered, one of the two a write.
bool carriesSharedHazard(Operation *loop) {
  SmallVector<Block *, 2> blocks = iterationBlocks(loop);
  auto none = [](const Access &, const Pending &) {};
  Walker tailWalker{none};
  Pending tail;
  for (Block *b : blocks)
    tailWalker.walkBlock(*b, tail);
  if (tailWalker.exhausted)
    return true;
  if (tail.empty())
    return false;
  Pending pending;
  for (const Access &a : tail)
    pending.insert({std::get<0>(a), std::get<1>(a), true});
  bool hazard = false;
  auto check = [&](const Access &a, const Pending &before) {
    for (const Access &p : before)
      if (std::get<2>(p) && conflicts(a, p))
        hazard = true;
  };
  Walker walker{check};
  for (Block *b : blocks)
    walker.walkBlock(*b, pending);
  return hazard || walker.exhausted;
}

} // namespace loop_hazards
} // namespace

void tile_lowering::fenceLoopCarriedSharedAccesses(LaunchState &state) {
  // Inner loops first: a barrier at the end of one orders what the loops
  // around it see.
  SmallVector<Operation *> loops;
  state.getLaunch().getBody().walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      loops.push_back(op);
  });
  IRRewriter &rw = state.getRewriter();
  for (Operation *loop : loops) {
    if (!loop_hazards::isUniformLoop(loop) ||
        !loop_hazards::carriesSharedHazard(loop))
      continue;
    Block *last = loop_hazards::iterationBlocks(loop).back();
    rw.setInsertionPoint(last->getTerminator());
    state.insertBarrier(loop->getLoc());
  }
}
