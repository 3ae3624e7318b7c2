//===- TileLoweringState.cpp - per-launch state of the tile lowering ------===//
//
// See TileLoweringState.h.
//
//===----------------------------------------------------------------------===//

#include "TileLoweringState.h"

#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

LogicalResult LaunchState::setUpThreads() {
  std::optional<int64_t> bx = getConstantIntValue(launch.getBlockSizeX());
  std::optional<int64_t> by = getConstantIntValue(launch.getBlockSizeY());
  std::optional<int64_t> bz = getConstantIntValue(launch.getBlockSizeZ());
  if (!bx || !by || !bz || *by != 1 || *bz != 1)
    return launch.emitOpError("with ext tile ops needs a constant "
                              "one-dimensional block size");
  blockThreads = *bx;
  rw.setInsertionPointToStart(&launch.getBody().front());
  tid = gpu::ThreadIdOp::create(rw, launch.getLoc(), gpu::Dimension::x);
  return success();
}

int64_t LaunchState::getThreadsAt(Operation *op) const {
  for (Operation *p = op->getParentOp(); p && !isa<gpu::LaunchOp>(p);
       p = p->getParentOp())
    if (auto n = p->getAttrOfType<IntegerAttr>(kRoleThreadsAttrName))
      if (p->getRegion(0).isAncestor(op->getParentRegion()))
        return n.getInt();
  return blockThreads;
}

Value LaunchState::getThreadIdAt(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<gpu::LaunchOp>(p);
       p = p->getParentOp()) {
    auto n = p->getAttrOfType<IntegerAttr>(kRoleThreadsAttrName);
    if (!n || !p->hasAttr(kRoleLocalIdsAttrName) ||
        !p->getRegion(0).isAncestor(op->getParentRegion()))
      continue;
    Value &local = localIds[p];
    if (!local) {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(&p->getRegion(0).front());
      local = arith::RemUIOp::create(
          rw, p->getLoc(), tid,
          arith::ConstantIndexOp::create(rw, p->getLoc(), n.getInt()));
    }
    return local;
  }
  return tid;
}

Value LaunchState::addPrivateBuffer(Location loc, ArrayRef<int64_t> shape,
                                    Type elem) {
  // After outlining it is an alloca in the kernel's entry block, which LLVM
  // promotes to registers once the (unrolled) accesses use constant indices.
  auto space =
      gpu::AddressSpaceAttr::get(rw.getContext(), gpu::AddressSpace::Private);
  return launch.addPrivateAttribution(
      MemRefType::get(shape, elem, MemRefLayoutAttrInterface(), space), loc);
}

Value LaunchState::newScratch(Location loc, ArrayRef<int64_t> shape,
                              Type elem) {
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPointToStart(&launch.getBody().front());
  auto space =
      gpu::AddressSpaceAttr::get(rw.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get(shape, elem, MemRefLayoutAttrInterface(), space);
  return AllocSharedOp::create(rw, loc, type, ArrayAttr(), SwizzleAttr());
}

void LaunchState::insertBarrier(Location loc) {
  if (barrierCounter++ == dropBarrier)
    return;
  auto barrier = gpu::BarrierOp::create(rw, loc);
  // In a warp-specialized role's region the barrier is its threads' alone
  // (the producer never reaches it): bar.sync 1 of the consumers, or with
  // ping-pong bar.sync 2 + w of consumer warpgroup w's 128 threads (the
  // two may be in their epilogues at once).
  int64_t threads = getThreadsAt(barrier);
  if (threads == blockThreads)
    return;
  rw.setInsertionPoint(barrier);
  Value id = arith::ConstantIntOp::create(rw, loc, 1, 32);
  for (Operation *p = barrier->getParentOp(); p && !isa<gpu::LaunchOp>(p);
       p = p->getParentOp())
    if (p->hasAttr(kRoleLocalIdsAttrName) && p->hasAttr(kRoleThreadsAttrName))
      id = arith::IndexCastOp::create(
          rw, loc, rw.getI32Type(),
          arith::AddIOp::create(
              rw, loc, arith::ConstantIndexOp::create(rw, loc, 2),
              arith::DivUIOp::create(
                  rw, loc, tid, arith::ConstantIndexOp::create(rw, loc, threads))));
  Value count = arith::ConstantIntOp::create(rw, loc, threads, 32);
  auto named = NVVM::BarrierOp::create(rw, loc, Type(), id, count,
                                       NVVM::BarrierReductionAttr(), Value());
  rw.eraseOp(barrier);
  rw.setInsertionPointAfter(named);
}

Value LaunchState::dominatingGroupToken(Operation *op) {
  for (Value t : llvm::reverse(groupTokens))
    if (dominance.properlyDominates(t, op))
      return t;
  return Value();
}

SmallVector<StagedStores> LaunchState::takeStagedStores(Block *block) {
  auto it = pendingStores.find(block);
  if (it == pendingStores.end())
    return {};
  SmallVector<StagedStores> stores = std::move(it->second);
  pendingStores.erase(it);
  return stores;
}
