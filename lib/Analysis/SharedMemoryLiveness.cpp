//===- SharedMemoryLiveness.cpp - live ranges of workgroup buffers --------===//
//
// Ops of the kernel are numbered in program order (pre-order). A buffer's
// interval starts at its first access and ends at the last op where any of
// its aliases is live (mlir::Liveness) or accessed; an address taken as an
// integer (a wgmma matrix descriptor) is accessed wherever a value computed
// from it is used. Two corrections make the interval hold for the whole
// block rather than one thread's straight-line view:
//
// * Loops. Liveness sees no back-edge through scf.for, so a buffer accessed
//   in a loop may carry data from one iteration into the next (a read early
//   in iteration i+1 of a write late in iteration i). The interval grows to
//   the whole of every loop containing an access, unless
//   SharedMemoryCoverage proves the loop carries none of the buffer's data
//   (every iteration's reads follow a barrier after writes that cover what
//   they read). Then the buffer is live only from its first to its last
//   access inside the body, and buffers used one after another in the body
//   (a persistent loop's k-loop tiles and its epilogue's staging tile) may
//   share bytes; ext-gpu-reuse-shared-memory puts a barrier on the back-edge.
// * Divergence. Threads of a block may take different sides of an scf.if
//   whose condition depends on the thread, at the same time. A buffer
//   accessed under such an if is live over all of it, so buffers of the two
//   branches interfere. Under a uniform condition (block ids, kernel
//   arguments, constants and what is computed from them) the branches are
//   exclusive for the whole block and their buffers may share bytes.
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/SharedMemoryLiveness.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace ext {

static bool isWorkgroup(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  if (!m)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(m.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

static Region &kernelBody(Operation *kernel) {
  if (auto launch = dyn_cast<gpu::LaunchOp>(kernel))
    return launch.getBody();
  return cast<gpu::GPUFuncOp>(kernel).getBody();
}

SharedMemoryLiveness::SharedMemoryLiveness(Operation *kernel,
                                           uint64_t minAlignment)
    : kernel(kernel), coverage(kernel) {
  Region &body = kernelBody(kernel);
  numberOps(body);
  collectBuffers(body, minAlignment);
  for (LiveSharedBuffer &b : buffers)
    computeInterval(b);
}

void SharedMemoryLiveness::numberOps(Region &body) {
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    index[op] = order.size();
    order.push_back(op);
  });
  // Post-order: every op's last nested number is known after its children.
  body.walk<WalkOrder::PostOrder>([&](Operation *op) {
    int64_t last = index[op];
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (Operation &nested : b)
          last = std::max(last, lastNested[&nested]);
    lastNested[op] = last;
  });
}

void SharedMemoryLiveness::collectBuffers(Region &body, uint64_t minAlignment) {
  DataLayout layout = DataLayout::closest(kernel);
  auto addBuffer = [&](Value root) {
    LiveSharedBuffer b;
    b.root = root;
    b.type = cast<MemRefType>(root.getType());
    b.dynamic = !b.type.hasStaticShape() || !b.type.getLayout().isIdentity();
    uint64_t elemBytes = layout.getTypeSize(b.type.getElementType());
    b.alignment = std::max<uint64_t>(elemBytes ? elemBytes : 1, minAlignment);
    // Saturating: a shape from the input may overflow 64 bits, and such a
    // buffer is over every limit (ext-gpu-reuse-shared-memory leaves it).
    if (!b.dynamic) {
      b.sizeBytes = elemBytes;
      for (int64_t size : b.type.getShape())
        b.sizeBytes = llvm::SaturatingMultiply(b.sizeBytes, uint64_t(size));
    }
    buffers.push_back(std::move(b));
  };
  if (auto launch = dyn_cast<gpu::LaunchOp>(kernel))
    for (BlockArgument arg : launch.getWorkgroupAttributions())
      addBuffer(arg);
  else
    for (BlockArgument arg :
         cast<gpu::GPUFuncOp>(kernel).getWorkgroupAttributions())
      addBuffer(arg);
  body.walk([&](memref::AllocOp alloc) {
    if (isWorkgroup(alloc.getType()))
      addBuffer(alloc.getResult());
  });
}

bool SharedMemoryLiveness::isLoop(Operation *op) const {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp>(op) ||
         (op->getNumRegions() && isa<LoopLikeOpInterface>(op));
}

/// Follows `root` through every op that forwards it (views, casts, loop and
/// branch arguments, selects) and returns the aliases; `accesses` gets every
/// other user.
static SmallVector<Value> collectAliases(Value root,
                                         llvm::SetVector<Operation *> &accesses) {
  SmallVector<Value> aliases, worklist = {root};
  llvm::DenseSet<Value> seen = {root};
  auto push = [&](Value v) {
    if (seen.insert(v).second)
      worklist.push_back(v);
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    aliases.push_back(v);
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == v) {
          for (Value r : user->getResults())
            push(r);
          continue;
        }
      }
      if (isa<memref::CastOp, arith::SelectOp>(user)) {
        push(user->getResult(0));
        continue;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() >= 3) {
          unsigned i = use.getOperandNumber() - 3;
          push(forOp.getRegionIterArgs()[i]);
          push(forOp.getResult(i));
          continue;
        }
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        unsigned i = use.getOperandNumber();
        if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
          push(forOp.getRegionIterArgs()[i]);
          push(forOp.getResult(i));
          continue;
        }
        if (isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(parent)) {
          push(parent->getResult(i));
          continue;
        }
      }
      if (auto branch = dyn_cast<BranchOpInterface>(user)) {
        for (unsigned s = 0; s < user->getNumSuccessors(); ++s) {
          SuccessorOperands ops = branch.getSuccessorOperands(s);
          for (unsigned j = 0; j < ops.size(); ++j)
            if (ops[j] == v)
              push(user->getSuccessor(s)->getArgument(
                  ops.getProducedOperandCount() + j));
        }
        continue;
      }
      if (isa<memref::DeallocOp>(user))
        continue;
      // Its address as an integer (a wgmma matrix descriptor, say) reads the
      // buffer wherever a value computed from it is used: every op of the
      // address's forward slice is an access, the wgmma that reads through
      // the descriptor included, however far from where the address was
      // taken (LICM hoists it out of the loop).
      if (auto address = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        accesses.insert(user);
        llvm::SetVector<Operation *> slice;
        getForwardSlice(address.getResult(), &slice);
        for (Operation *op : slice)
          accesses.insert(op);
        continue;
      }
      // Anything else reads or writes through it (or lets it escape: a call,
      // a store of the pointer), which counts as an access too.
      accesses.insert(user);
    }
  }
  return aliases;
}

void SharedMemoryLiveness::computeInterval(LiveSharedBuffer &buffer) {
  llvm::SetVector<Operation *> accessSet;
  SmallVector<Value> aliases = collectAliases(buffer.root, accessSet);
  buffer.accesses = accessSet.takeVector();
  // A vector access (a vector.load of 4 floats, say) needs its buffer
  // aligned to the vector's size.
  for (Operation *op : buffer.accesses)
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                           op->getResultTypes()))
      if (auto vec = dyn_cast<VectorType>(t);
          vec && vec.hasStaticShape() &&
          vec.getElementType().isIntOrFloat()) {
        uint64_t bytes = vec.getNumElements() *
                         vec.getElementType().getIntOrFloatBitWidth() / 8;
        if (llvm::isPowerOf2_64(bytes))
          buffer.alignment = std::max(buffer.alignment, bytes);
      }
  // Code that takes a buffer's address may depend on its alignment: a
  // wgmma matrix descriptor's swizzle is of address bits, which agree with
  // the tile's own offsets only from a multiple of the pattern (1024 bytes
  // at most).
  // A bulk tensor copy's swizzle is of address bits too.
  if (llvm::any_of(buffer.accesses, [](Operation *op) {
        return isa<memref::ExtractAlignedPointerAsIndexOp,
                   nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp>(op);
      }))
    buffer.alignment = std::max<uint64_t>(buffer.alignment, 1024);
  llvm::sort(buffer.accesses, [&](Operation *a, Operation *b) {
    return index.lookup(a) < index.lookup(b);
  });
  if (buffer.accesses.empty())
    return;
  int64_t begin = index.lookup(buffer.accesses.front());
  int64_t end = 0;
  for (Operation *op : buffer.accesses)
    end = std::max(end, lastNested.lookup(op));

  // The aliases' own SSA liveness: a view kept live across ops counts
  // towards the end. (Not towards the beginning: making a view touches no
  // memory, and views are made up front, at the top of the kernel, for
  // tiles first written much later, such as the value tile an attention
  // step copies after its scores.)
  Liveness liveness(kernel);
  for (Value alias : aliases) {
    if (alias == buffer.root)
      continue;
    for (Operation *op : liveness.resolveLiveness(alias))
      if (index.count(op))
        end = std::max(end, index.lookup(op));
  }

  // Loops and divergent branches around the accesses (see the file comment);
  // repeat since a grown interval may reach new ones.
  llvm::DenseMap<Operation *, bool> carried;
  auto mayCarry = [&](Operation *loop) {
    auto [it, inserted] = carried.try_emplace(loop, true);
    if (inserted) {
      it->second = buffer.dynamic ||
                   coverage.mayCarry(buffer.root, buffer.sizeBytes,
                                     buffer.accesses, loop,
                                     [&](Value v) { return isUniform(v); });
      if (!it->second)
        buffer.uncarriedLoops.push_back(loop);
    }
    return it->second;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *access : buffer.accesses) {
      for (Operation *p = access->getParentOp(); p && p != kernel;
           p = p->getParentOp()) {
        bool grow = isLoop(p) && mayCarry(p);
        if (auto ifOp = dyn_cast<scf::IfOp>(p))
          grow = !isUniform(ifOp.getCondition());
        if (!grow)
          continue;
        int64_t lo = index.lookup(p), hi = lastNested.lookup(p);
        if (lo < begin || hi > end) {
          begin = std::min(begin, lo);
          end = std::max(end, hi);
          changed = true;
        }
      }
    }
  }
  buffer.begin = begin;
  buffer.end = end;
}

bool SharedMemoryLiveness::interfere(unsigned a, unsigned b) const {
  const LiveSharedBuffer &x = buffers[a], &y = buffers[b];
  if (!x.isLive() || !y.isLive())
    return false;
  return x.begin <= y.end && y.begin <= x.end;
}

bool SharedMemoryLiveness::isUniform(Value v) {
  if (auto it = uniform.find(v); it != uniform.end())
    return it->second;
  bool result = false;
  Region &body = kernelBody(kernel);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // SSA values cycle only through block arguments: there a value reached
    // again is not uniform, but for an scf.while's (see below).
    uniform[v] = false;
    Block *owner = arg.getOwner();
    if (owner->getParent() && !body.isAncestor(owner->getParent())) {
      result = true; // defined outside the kernel: the same for every thread
    } else if (owner == &body.front()) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(kernel)) {
        gpu::KernelDim3 tids = launch.getThreadIds();
        result = arg != tids.x && arg != tids.y && arg != tids.z;
      } else {
        result = true; // gpu.func arguments and attributions
      }
    } else if (auto forOp = dyn_cast<scf::ForOp>(owner->getParentOp())) {
      result = arg == forOp.getInductionVar() &&
               isUniform(forOp.getLowerBound()) &&
               isUniform(forOp.getUpperBound()) && isUniform(forOp.getStep());
    } else if (auto whileOp = dyn_cast<scf::WhileOp>(owner->getParentOp())) {
      // Carried through the loop: assume it uniform while checking what
      // flows in (the greatest fixpoint); if that fails, forget everything
      // concluded under the assumption.
      unsigned i = arg.getArgNumber();
      size_t mark = uniformLog.size();
      uniform[v] = true;
      uniformLog.push_back(v);
      auto cond = whileOp.getConditionOp();
      auto yield = cast<scf::YieldOp>(whileOp.getAfterBody()->getTerminator());
      if (owner == whileOp.getBeforeBody())
        result = isUniform(whileOp.getInits()[i]) &&
                 isUniform(yield.getOperand(i));
      else
        result = isUniform(cond.getArgs()[i]);
      result = result && isUniform(cond.getCondition());
      if (!result)
        for (Value undone : ArrayRef(uniformLog).drop_front(mark))
          uniform.erase(undone);
      if (!result)
        uniformLog.resize(mark);
    }
  } else {
    Operation *def = v.getDefiningOp();
    if (!kernel->isProperAncestor(def)) {
      result = true;
    } else if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
                   gpu::GlobalIdOp>(def)) {
      result = false;
    } else if (isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp,
                   gpu::ClusterIdOp, gpu::NumSubgroupsOp, gpu::SubgroupSizeOp>(
                   def) ||
               matchPattern(v, m_Constant())) {
      result = true;
    } else if (def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
      result = llvm::all_of(def->getOperands(),
                            [&](Value o) { return isUniform(o); });
    }
  }
  uniform[v] = result;
  uniformLog.push_back(v);
  return result;
}

} // namespace ext
