//===- TileCopies.cpp - ext.copy and ext.store_tile to per-thread code ----===//
//
// The memory side of ext-tile-ops-to-threads: an ext.copy of a window into a
// tile (synchronous, through cp.async, or staged in registers until its
// ext.copy_commit), the copy pipeline's commits and waits, and the
// ext.store_tile of a staged output tile. The block's threads share the
// vectors of a tile, each vector as wide as alignment and layout allow.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "TileLoweringUtils.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

namespace {

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

/// How a copy into shared memory completes.
enum class CopyKind { Sync, Async, Registers };

/// A load or store of `width` elements (a vector when width > 1), aligned
/// to its size unless `mem` is private (an alloca the copy's proofs do not
/// cover; registers on the GPU).
llvm::MaybeAlign vectorAlign(Value mem, int64_t width) {
  auto type = cast<MemRefType>(mem.getType());
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (space && space.getValue() == gpu::AddressSpace::Private)
    return std::nullopt;
  return llvm::MaybeAlign(width * elementBytes(type.getElementType()));
}
Value loadElements(OpBuilder &b, Location loc, Value mem, ValueRange idx,
                   int64_t width) {
  Type elem = cast<MemRefType>(mem.getType()).getElementType();
  if (width == 1)
    return memref::LoadOp::create(b, loc, mem, idx);
  return vector::LoadOp::create(b, loc, VectorType::get({width}, elem), mem,
                                idx, /*nontemporal=*/false,
                                vectorAlign(mem, width));
}
void storeElements(OpBuilder &b, Location loc, Value value, Value mem,
                   ValueRange idx, int64_t width) {
  if (width == 1) {
    memref::StoreOp::create(b, loc, value, mem, idx);
    return;
  }
  vector::StoreOp::create(b, loc, value, mem, idx, /*nontemporal=*/false,
                          vectorAlign(mem, width));
}

/// The element of a row-major tile of `shape` at which vector `vecIdx` (of
/// `width` elements) starts.
SmallVector<Value> vectorStart(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> shape, int64_t width,
                               Value vecIdx) {
  Value rest = arith::MulIOp::create(b, loc, vecIdx, constIndex(b, loc, width));
  SmallVector<Value> idx(shape.size());
  for (int d = shape.size() - 1; d >= 0; --d) {
    Value size = constIndex(b, loc, shape[d]);
    idx[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return idx;
}

/// Where vector `vecIdx` of a tile of `shape` moves to or from a window at
/// `offsets` of `global`: the tile's and the global memref's indices of its
/// first element, and whether that lies inside `global` (the vector then
/// does too: widths keep vectors inside rows). Dimensions flagged in
/// `known` are inside by the caller's word and not checked; `inBounds` is
/// null when every dimension is.
struct WindowVector {
  SmallVector<Value> tileIdx, globalIdx;
  Value inBounds;
};
WindowVector windowVector(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          int64_t width, Value vecIdx, ValueRange offsets,
                          Value global, ArrayRef<bool> known = {}) {
  WindowVector v;
  v.tileIdx = vectorStart(b, loc, shape, width, vecIdx);
  SmallVector<Value> inBounds;
  for (unsigned d = 0; d < shape.size(); ++d) {
    v.globalIdx.push_back(
        arith::AddIOp::create(b, loc, offsets[d], v.tileIdx[d]));
    if (!known.empty() && known[d])
      continue;
    Value dim = memref::DimOp::create(b, loc, global, d);
    inBounds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             v.globalIdx[d], dim));
  }
  v.inBounds = andAll(b, loc, inBounds);
  return v;
}

/// Calls `fn(vector index, slot)` for each of the `numVectors` vectors
/// thread `tid` of `blockThreads` moves (its slot-th): unrolled when every
/// thread moves the same few (at most `maxUnrolled`).
void forEachThreadVector(OpBuilder &b, Location loc, Value tid,
                         int64_t blockThreads, int64_t numVectors,
                         function_ref<void(Value, Value)> fn,
                         int64_t maxUnrolled = 16) {
  int64_t slots = llvm::divideCeil(numVectors, blockThreads);
  if (numVectors % blockThreads == 0 && slots <= maxUnrolled) {
    for (int64_t r = 0; r < slots; ++r)
      fn(r == 0 ? tid
                : arith::AddIOp::create(b, loc, tid,
                                        constIndex(b, loc, r * blockThreads))
                      .getResult(),
         constIndex(b, loc, r));
    return;
  }
  auto loop = scf::ForOp::create(b, loc, tid, constIndex(b, loc, numVectors),
                                 constIndex(b, loc, blockThreads));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value iv = loop.getInductionVar();
  Value slot =
      arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, tid),
                             constIndex(b, loc, blockThreads));
  fn(iv, slot);
}

/// `body` under `if %active` (a CTA-uniform condition), or as is.
void emitIfActive(OpBuilder &b, Location loc, Value active,
                  function_ref<void()> body) {
  if (!active) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, active, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

/// Whether `op` ends a group of synchronous copies: the next op with effects
/// or regions is not one (index arithmetic between copies does not end it).
bool endsCopyGroup(CopyOp op) {
  Operation *next = op->getNextNode();
  while (next && next->getNumRegions() == 0 && isMemoryEffectFree(next))
    next = next->getNextNode();
  return !isa_and_nonnull<CopyOp>(next) || cast<CopyOp>(next).getStaged();
}

void emitStagedStores(LaunchState &state, const StagedStores &s) {
  IRRewriter &rw = state.getRewriter();
  auto dstType = cast<MemRefType>(s.target.getType());
  emitIfActive(rw, s.loc, s.active, [&] {
    forEachThreadVector(
        rw, s.loc, state.getThreadId(), state.getBlockThreads(), s.numVectors,
        [&](Value vecIdx, Value slot) {
          Value at = arith::MulIOp::create(rw, s.loc, slot,
                                           constIndex(rw, s.loc, s.width));
          Value value = loadElements(rw, s.loc, s.staging, at, s.width);
          storeElements(
              rw, s.loc, value, s.target,
              vectorStart(rw, s.loc, dstType.getShape(), s.width, vecIdx),
              s.width);
        });
  });
}

/// The vector width of a staged tile's stores into the target.
int64_t storeVectorWidth(StoreTileOp op, std::string &why) {
  return rowVectorWidth(cast<MemRefType>(op.getSource().getType()),
                        cast<MemRefType>(op.getTarget().getType()),
                        op.getOffsets().back(), op.getVector(), "target", why);
}

} // namespace

void tile_lowering::scanCopies(LaunchState &state, ArrayRef<Operation *> ops) {
  state.setUsesAsyncCopies(llvm::any_of(ops, [](Operation *op) {
    auto copy = dyn_cast<CopyOp>(op);
    return copy && lowersToAsyncCopy(copy);
  }));
}

LogicalResult tile_lowering::lowerCopy(LaunchState &state, CopyOp op) {
  Location loc = op.getLoc();
  IRRewriter &rw = state.getRewriter();
  Value tid = state.getThreadIdAt(op);
  int64_t blockThreads = state.getThreadsAt(op);
  rw.setInsertionPoint(op);
  auto srcType = cast<MemRefType>(op.getSource().getType());
  auto dstType = cast<MemRefType>(op.getTarget().getType());
  Type elem = dstType.getElementType();
  std::string why;
  int64_t width = copyVectorWidth(op, why);
  if (!why.empty())
    op.emitRemark() << "copies " << why;
  CopyKind kind = CopyKind::Sync;
  if (std::optional<CopyStaging> staged = op.getStaged()) {
    kind =
        *staged == CopyStaging::async ? CopyKind::Async : CopyKind::Registers;
    if (kind == CopyKind::Async &&
        !isAsyncCopyWidth(width * elementBytes(elem))) {
      op.emitRemark() << "stages its copy through registers: cp.async moves "
                         "4, 8 or 16 bytes, this copy "
                      << width * elementBytes(elem);
      kind = CopyKind::Registers;
    }
  }
  int64_t numVectors = dstType.getNumElements() / width;
  int64_t slots = llvm::divideCeil(numVectors, blockThreads);
  // The fill is branch-free: an out-of-bounds vector reads a clamped (valid)
  // address and selects zero instead. Index 0 is valid when no size is 0: a
  // dynamic size is a compute's dynamic extent, and a kernel runs a CTA
  // only for a tile count ceil(extent / tile) >= 1.
  bool branchFree = srcType.getRank() == 0 ||
                    llvm::none_of(srcType.getShape(),
                                  [](int64_t d) { return d == 0; });
  Type valueType = width > 1 ? Type(VectorType::get({width}, elem)) : elem;
  Value zeroIdx = constIndex(rw, loc, 0);

  // A thread's registers for its vectors of a register-staged copy.
  Value staging;
  if (kind == CopyKind::Registers)
    staging = state.addPrivateBuffer(loc, {slots * width}, elem);

  auto copyOne = [&](Value vecIdx, Value slot) {
    WindowVector w =
        windowVector(rw, loc, dstType.getShape(), width, vecIdx,
                     op.getOffsets(), op.getSource(),
                     op.getInBounds().value_or(ArrayRef<bool>()));
    SmallVector<Value> &dstIdx = w.tileIdx, &srcIdx = w.globalIdx;
    Value valid = w.inBounds;
    bool bypassL1 = width * elementBytes(elem) == 16;
    if (kind == CopyKind::Async) {
      // Zero fill through srcElements: a vector outside the source reads
      // nothing (from a clamped address) and writes zeros. A window inside
      // the source everywhere (no `valid`) needs neither.
      SmallVector<Value> safe(srcIdx);
      Value srcElements;
      if (valid) {
        for (Value &i : safe)
          i = arith::SelectOp::create(rw, loc, valid, i, zeroIdx);
        srcElements = arith::SelectOp::create(
            rw, loc, valid, constIndex(rw, loc, width), zeroIdx);
      }
      nvgpu::DeviceAsyncCopyOp::create(
          rw, loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()),
          op.getTarget(), dstIdx, op.getSource(), safe, rw.getIndexAttr(width),
          srcElements, bypassL1 ? rw.getUnitAttr() : UnitAttr());
      return;
    }
    Value value;
    if (!valid) {
      value = loadElements(rw, loc, op.getSource(), srcIdx, width);
    } else if (branchFree) {
      SmallVector<Value> safe;
      for (Value i : srcIdx)
        safe.push_back(arith::SelectOp::create(rw, loc, valid, i, zeroIdx));
      value = arith::SelectOp::create(
          rw, loc, valid, loadElements(rw, loc, op.getSource(), safe, width),
          zeroOf(rw, loc, valueType));
    } else {
      auto ifOp = scf::IfOp::create(
          rw, loc, valid,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(
                b, l, loadElements(b, l, op.getSource(), srcIdx, width));
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, zeroOf(b, l, valueType));
          });
      value = ifOp.getResult(0);
    }
    if (kind == CopyKind::Registers) {
      Value at =
          arith::MulIOp::create(rw, loc, slot, constIndex(rw, loc, width));
      storeElements(rw, loc, value, staging, at, width);
      return;
    }
    storeElements(rw, loc, value, op.getTarget(), dstIdx, width);
  };

  // cp.async holds no registers: a thread's 32 copies (a warp moving a
  // 64 x 128 f16 tile, decode attention's K step) unrolled cost an address
  // and a copy each, where the loop cost 18 instructions per copy.
  emitIfActive(rw, loc, op.getActive(), [&] {
    forEachThreadVector(rw, loc, tid, blockThreads, numVectors, copyOne,
                        kind == CopyKind::Async ? 32 : 16);
  });
  if (kind == CopyKind::Registers)
    state.deferStagedStores(
        op->getBlock(),
        {loc, op.getTarget(), staging, op.getActive(), width, numVectors});
  // Staged copies synchronize through ext.copy_wait.
  if (op.getStaged())
    return success();
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(dstType.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return success();
  // Other threads read what this copy wrote: a barrier after the group of
  // copies it belongs to.
  if (endsCopyGroup(op)) {
    rw.setInsertionPointAfter(op);
    state.insertBarrier(loc);
  }
  if (auto loop = op->getParentOfType<scf::ForOp>();
      loop && state.getLaunch()->isProperAncestor(loop))
    state.addCopyLoop(loop);
  return success();
}

void tile_lowering::fenceCopyLoops(LaunchState &state) {
  // The next iteration's copies overwrite what this iteration's compute
  // reads.
  IRRewriter &rw = state.getRewriter();
  for (scf::ForOp loop : state.getCopyLoops()) {
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    state.insertBarrier(loop.getLoc());
  }
}

LogicalResult tile_lowering::lowerCopyCommit(LaunchState &state,
                                             CopyCommitOp op) {
  IRRewriter &rw = state.getRewriter();
  rw.setInsertionPoint(op);
  for (const StagedStores &stores : state.takeStagedStores(op->getBlock()))
    emitStagedStores(state, stores);
  if (state.usesAsyncCopies())
    state.addGroupToken(nvgpu::DeviceAsyncCreateGroupOp::create(
        rw, op.getLoc(), nvgpu::DeviceAsyncTokenType::get(rw.getContext()),
        ValueRange{}));
  return success();
}

LogicalResult tile_lowering::lowerCopyWait(LaunchState &state, CopyWaitOp op) {
  IRRewriter &rw = state.getRewriter();
  rw.setInsertionPoint(op);
  if (state.usesAsyncCopies()) {
    // nvgpu's wait names a token; the count is what matters (numGroups), so
    // any earlier group's token that dominates the wait will do.
    Value token = state.dominatingGroupToken(op);
    if (!token)
      return op.emitOpError("waits for copy groups before any was committed");
    nvgpu::DeviceAsyncWaitOp::create(rw, op.getLoc(), token,
                                     rw.getI32IntegerAttr(op.getPending()));
  }
  state.insertBarrier(op.getLoc());
  return success();
}

/// A store_tile through a tensor map: one bulk tensor store of the tile.
/// Its writers make their shared-memory writes visible to the copy engine
/// (the async proxy) before the barrier that lets one thread issue it; that
/// thread waits until the engine has read the tile before the barrier that
/// lets anyone rewrite it (the next unit's epilogue, a buffer sharing its
/// bytes). The engine skips elements outside the target.
static void lowerTmaStoreTile(LaunchState &state, StoreTileOp op) {
  Location loc = op.getLoc();
  IRRewriter &rw = state.getRewriter();
  MLIRContext *ctx = rw.getContext();
  NVVM::FenceProxyOp::create(
      rw, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  state.insertBarrier(loc);
  Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                      state.getThreadIdAt(op),
                                      constIndex(rw, loc, 0));
  scf::IfOp::create(rw, loc, first, [&](OpBuilder &b, Location l) {
    // The copy engine's coordinates run innermost first.
    SmallVector<Value> coords(llvm::reverse(op.getOffsets()));
    nvgpu::TmaAsyncStoreOp::create(b, l, op.getSource(), op.getTensorMap(),
                                   coords, Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, l);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, b.getUnitAttr());
    scf::YieldOp::create(b, l);
  });
  state.insertBarrier(loc);
}

LogicalResult tile_lowering::lowerStoreTile(LaunchState &state,
                                            StoreTileOp op) {
  Location loc = op.getLoc();
  IRRewriter &rw = state.getRewriter();
  rw.setInsertionPoint(op);
  if (op.getTensorMap()) {
    lowerTmaStoreTile(state, op);
    return success();
  }
  auto srcType = cast<MemRefType>(op.getSource().getType());
  std::string why;
  int64_t width = storeVectorWidth(op, why);
  if (!why.empty())
    op.emitRemark() << "stores " << why;
  auto storeOne = [&](Value vecIdx, Value) {
    WindowVector w = windowVector(rw, loc, srcType.getShape(), width, vecIdx,
                                  op.getOffsets(), op.getTarget());
    SmallVector<Value> &srcIdx = w.tileIdx, &dstIdx = w.globalIdx;
    scf::IfOp::create(rw, loc, w.inBounds, [&](OpBuilder &b, Location l) {
      Value v = loadElements(b, l, op.getSource(), srcIdx, width);
      storeElements(b, l, v, op.getTarget(), dstIdx, width);
      scf::YieldOp::create(b, l);
    });
  };
  // The tile's writers (the epilogue's fragment stores) are done before any
  // thread reads it; its readers are done before anything overwrites it (the
  // next work unit's epilogue, or a buffer sharing its bytes).
  state.insertBarrier(loc);
  forEachThreadVector(rw, loc, state.getThreadIdAt(op), state.getThreadsAt(op),
                      srcType.getNumElements() / width, storeOne);
  rw.setInsertionPointAfter(op);
  state.insertBarrier(loc);
  return success();
}
