//===- TileOpsToThreads.cpp - tile ops to per-thread code -----------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <map>
#include <numeric>

namespace ext {
#define GEN_PASS_DEF_EXTTILEOPSTOTHREADS
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value r;
  for (Value c : conds)
    r = r ? arith::AndIOp::create(b, loc, r, c).getResult() : c;
  return r;
}

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

/// Coordinates of linear thread `tid` in a thread grid, last axis fastest.
SmallVector<Value> threadCoords(OpBuilder &b, Location loc, Value tid,
                                ArrayRef<int64_t> threads) {
  SmallVector<Value> coords(threads.size());
  Value rest = tid;
  for (int a = threads.size() - 1; a >= 0; --a) {
    if (threads[a] == 1) {
      coords[a] = constIndex(b, loc, 0);
      continue;
    }
    Value h = constIndex(b, loc, threads[a]);
    coords[a] = arith::RemUIOp::create(b, loc, rest, h);
    rest = arith::DivUIOp::create(b, loc, rest, h);
  }
  return coords;
}

struct FragmentInfo {
  Value storage; // the thread's private buffer
  SmallVector<int64_t> shape, threads;
  FragmentLayoutAttrInterface layout;
};

/// A multiple every value of `v` is known to be (1 when nothing is known):
/// enough to prove that tile origins (`coordinate * tile + constant`) keep
/// vector accesses aligned.
int64_t knownMultiple(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c == 0 ? int64_t(1) << 62 : std::abs(*c);
  Operation *def = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def))
    return std::min<int64_t>(int64_t(1) << 62, knownMultiple(mul.getLhs()) *
                                                   knownMultiple(mul.getRhs()));
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def))
    return std::gcd(knownMultiple(add.getLhs()), knownMultiple(add.getRhs()));
  return 1;
}

int64_t elementBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// Whether every stride but the innermost is a static multiple of `w`: rows
/// then start `w`-aligned.
bool outerStridesDivisible(ArrayRef<int64_t> strides, int64_t w) {
  return llvm::all_of(strides.drop_back(), [&](int64_t s) {
    return !ShapedType::isDynamic(s) && s % w == 0;
  });
}

bool isWorkgroupMemRef(Type t) {
  auto type = dyn_cast<MemRefType>(t);
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// Combines like combineAccumulators, but a product yielded into a `sum`
/// becomes one fused multiply-add (`math.fma`, one rounding instead of two:
/// C's -ffp-contract=on inside `acc += a * b`), so that NVPTX and AMDGPU
/// emit fma / v_fma instead of mul.rn + add.rn, which they may not contract.
SmallVector<Value> combineFused(RewriterBase &rw, Location loc,
                                TileComputeOp op, ValueRange accs,
                                ValueRange values) {
  if (accs.size() == 1 && op.getCombiner() == CombinerKind::sum)
    if (auto mul = values[0].getDefiningOp<arith::MulFOp>();
        mul && mul->use_empty()) {
      Value fma =
          math::FmaOp::create(rw, loc, mul.getLhs(), mul.getRhs(), accs[0]);
      rw.eraseOp(mul);
      return {fma};
    }
  return combineAccumulators(rw, loc, *op.getCombiner(), op.getReducer(), accs,
                             values);
}

class LaunchLowering;

/// Register blocking, the element-wise accumulation every layout can take:
/// per step of the reduce axes, each input's slice for the thread's points
/// is loaded once (vector loads along runs of consecutive points, up to 16
/// bytes), then every point of the register tile is updated from registers.
/// `threadCoords` are each axis' thread coordinate.
LogicalResult emitOuterProduct(LaunchLowering &lowering, TileComputeOp op,
                               ArrayRef<Value> threadCoords,
                               ArrayRef<Value> bounds);

/// Lowers the tile ops of one gpu.launch.
class LaunchLowering {
public:
  LaunchLowering(gpu::LaunchOp launch, int &barrierCounter, int dropBarrier,
                 StringRef chip)
      : launch(launch), rw(launch.getContext()),
        barrierCounter(barrierCounter), dropBarrier(dropBarrier), chip(chip),
        dominance(launch) {}

  LogicalResult run();

private:
  friend LogicalResult emitOuterProduct(LaunchLowering &, TileComputeOp,
                                        ArrayRef<Value>, ArrayRef<Value>);
  friend class AccumulationContext;
  void insertBarrier(Location loc) {
    if (barrierCounter++ == dropBarrier)
      return;
    gpu::BarrierOp::create(rw, loc);
  }
  LogicalResult lowerFragment(AllocFragmentOp op);
  LogicalResult lowerCopy(CopyOp op);
  LogicalResult lowerStoreTile(StoreTileOp op);
  LogicalResult lowerCopyCommit(CopyCommitOp op);
  LogicalResult lowerCopyWait(CopyWaitOp op);
  LogicalResult lowerTileCompute(TileComputeOp op);
  Value newScratch(Location loc, ArrayRef<int64_t> shape, Type elem);

  /// Element of `operand` at domain point `points` (fragment: local `locals`).
  SmallVector<Value> accessIndices(TileComputeOp op, Value operand,
                                   AffineMap map, ArrayRef<Value> points,
                                   ArrayRef<Value> locals);
  LogicalResult checkFragmentAccess(TileComputeOp op, Value operand,
                                    AffineMap map);

  /// Combines `accs` across the threads of reduce axis `r` (on `hr`
  /// threads, `stride` apart in the linear thread id); the result is valid
  /// in the axis' thread 0.
  SmallVector<Value> combineAcrossThreads(TileComputeOp op, ValueRange accs,
                                          Value tr, int64_t hr, int64_t stride,
                                          int64_t numThreads);

  gpu::LaunchOp launch;
  IRRewriter rw;
  int &barrierCounter;
  int dropBarrier;
  std::string chip;
  Value tid;
  int64_t blockThreads = 0;
  DenseMap<Value, FragmentInfo> fragments;
  /// Register-staged copies' stores to shared memory, emitted at the next
  /// ext.copy_commit of their block.
  struct StagedStores {
    Location loc;
    Value target, staging, active;
    int64_t width, numVectors;
  };
  DenseMap<Block *, SmallVector<StagedStores>> pendingStores;
  void emitStagedStores(const StagedStores &stores);
  /// Whether any staged copy of the launch is a cp.async (then every commit
  /// and wait lowers to nvgpu's, so group counts stay uniform).
  bool usesAsyncCopies = false;
  SmallVector<Value> groupTokens;
  DominanceInfo dominance;
};

Value LaunchLowering::newScratch(Location loc, ArrayRef<int64_t> shape,
                                 Type elem) {
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPointToStart(&launch.getBody().front());
  auto space = gpu::AddressSpaceAttr::get(rw.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get(shape, elem, MemRefLayoutAttrInterface(), space);
  return AllocSharedOp::create(rw, loc, type, ArrayAttr(), SwizzleAttr());
}

LogicalResult LaunchLowering::lowerFragment(AllocFragmentOp op) {
  auto type = cast<MemRefType>(op.getType());
  SmallVector<int64_t> local = op.getLayoutOrDefault().getLocalShape(
      type.getShape(), op.getThreads());
  // A private attribution of the launch: after outlining it is an alloca
  // in the kernel's entry block, which LLVM promotes to registers once the
  // (unrolled) accesses use constant indices.
  auto space = gpu::AddressSpaceAttr::get(rw.getContext(),
                                          gpu::AddressSpace::Private);
  Value storage = launch.addPrivateAttribution(
      MemRefType::get(local, type.getElementType(), MemRefLayoutAttrInterface(),
                      space),
      op.getLoc());
  fragments[op.getResult()] = {storage, llvm::to_vector(type.getShape()),
                               llvm::to_vector(op.getThreads()),
                               op.getLayoutOrDefault()};
  return success();
}

/// The widest vector (a power of two, at most `vector` elements and 16
/// bytes) in which `op` can move its rows: every vector must start aligned
/// and lie inside one row of the source and of the target. Sets `why` when
/// it is narrower than asked.
int64_t copyVectorWidth(CopyOp op, std::string &why) {
  auto src = cast<MemRefType>(op.getSource().getType());
  auto dst = cast<MemRefType>(op.getTarget().getType());
  Type elem = dst.getElementType();
  int64_t asked = std::min<int64_t>(op.getVector(), 16 / elementBytes(elem));
  if (asked <= 1 || dst.getRank() == 0)
    return 1;
  SmallVector<int64_t> dstStrides;
  int64_t dstOffset;
  if (failed(dst.getStridesAndOffset(dstStrides, dstOffset)) ||
      dstStrides.back() != 1 || ShapedType::isDynamic(dstOffset)) {
    why = "the target's innermost dimension is not contiguous";
    return 1;
  }
  if (!src.getLayout().isIdentity() || !src.hasStaticShape()) {
    why = "the source is not a static, row-major memref";
    return 1;
  }
  int64_t rowLen = src.getShape().back();
  int64_t origin = knownMultiple(op.getOffsets().back());
  int64_t w = asked;
  auto fits = [&](int64_t w) {
    if (rowLen % w != 0 || dst.getShape().back() % w != 0 || origin % w != 0 ||
        dstOffset % w != 0)
      return false;
    return outerStridesDivisible(dstStrides, w);
  };
  while (w > 1 && !fits(w))
    w /= 2;
  if (w < asked) {
    llvm::raw_string_ostream os(why);
    if (rowLen % asked != 0)
      os << "the source's rows are " << rowLen << " elements long";
    else if (dst.getShape().back() % asked != 0)
      os << "the tile's rows are " << dst.getShape().back()
         << " elements long";
    else if (origin % asked != 0)
      os << "the window's column offset is not known to be a multiple of "
         << asked;
    else
      os << "the shared tile's row stride is not a multiple of " << asked;
  }
  return w;
}

/// How a copy into shared memory completes.
enum class CopyKind { Sync, Async, Registers };

/// Bytes one cp.async may move.
bool isAsyncCopyWidth(int64_t bytes) {
  return bytes == 4 || bytes == 8 || bytes == 16;
}

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

/// Calls `fn(vector index, slot)` for each of the `numVectors` vectors
/// thread `tid` of `blockThreads` moves (its slot-th): unrolled when every
/// thread moves the same few.
void forEachThreadVector(OpBuilder &b, Location loc, Value tid,
                         int64_t blockThreads, int64_t numVectors,
                         function_ref<void(Value, Value)> fn) {
  int64_t slots = llvm::divideCeil(numVectors, blockThreads);
  if (numVectors % blockThreads == 0 && slots <= 16) {
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

LogicalResult LaunchLowering::lowerCopy(CopyOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto srcType = cast<MemRefType>(op.getSource().getType());
  auto dstType = cast<MemRefType>(op.getTarget().getType());
  Type elem = dstType.getElementType();
  std::string why;
  int64_t width = copyVectorWidth(op, why);
  if (!why.empty())
    op.emitRemark() << "copies " << width << " element(s) at a time instead of "
                    << std::min<int64_t>(op.getVector(),
                                         16 / elementBytes(elem))
                    << ": " << why;
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
  unsigned rank = dstType.getRank();
  // With a static source the fill is branch-free: an out-of-bounds vector
  // reads a clamped (valid) address and selects zero instead.
  bool branchFree = srcType.hasStaticShape() && srcType.getNumElements() > 0;
  Type valueType = width > 1 ? Type(VectorType::get({width}, elem)) : elem;
  Value zeroIdx = constIndex(rw, loc, 0);

  // A thread's registers for its vectors of a register-staged copy.
  Value staging;
  if (kind == CopyKind::Registers) {
    auto space =
        gpu::AddressSpaceAttr::get(rw.getContext(), gpu::AddressSpace::Private);
    staging = launch.addPrivateAttribution(
        MemRefType::get({slots * width}, elem, MemRefLayoutAttrInterface(),
                        space),
        loc);
  }

  auto copyOne = [&](Value vecIdx, Value slot) {
    SmallVector<Value> dstIdx =
        vectorStart(rw, loc, dstType.getShape(), width, vecIdx);
    SmallVector<Value> srcIdx(rank), inBounds;
    for (unsigned d = 0; d < rank; ++d) {
      srcIdx[d] = arith::AddIOp::create(rw, loc, op.getOffsets()[d], dstIdx[d]);
      Value dim = memref::DimOp::create(rw, loc, op.getSource(), d);
      inBounds.push_back(arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::ult, srcIdx[d], dim));
    }
    Value valid = andAll(rw, loc, inBounds);
    if (kind == CopyKind::Async) {
      // Zero fill through srcElements: a vector outside the source reads
      // nothing (from a clamped address) and writes zeros.
      SmallVector<Value> safe;
      for (Value i : srcIdx)
        safe.push_back(arith::SelectOp::create(rw, loc, valid, i, zeroIdx));
      Value srcElements = arith::SelectOp::create(
          rw, loc, valid, constIndex(rw, loc, width), zeroIdx);
      bool bypassL1 = width * elementBytes(elem) == 16;
      nvgpu::DeviceAsyncCopyOp::create(
          rw, loc, nvgpu::DeviceAsyncTokenType::get(rw.getContext()),
          op.getTarget(), dstIdx, op.getSource(), safe, rw.getIndexAttr(width),
          srcElements, bypassL1 ? rw.getUnitAttr() : UnitAttr());
      return;
    }
    Value value;
    if (branchFree) {
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

  emitIfActive(rw, loc, op.getActive(), [&] {
    forEachThreadVector(rw, loc, tid, blockThreads, numVectors, copyOne);
  });
  if (kind == CopyKind::Registers)
    pendingStores[op->getBlock()].push_back(
        {loc, op.getTarget(), staging, op.getActive(), width, numVectors});
  return success();
}

void LaunchLowering::emitStagedStores(const StagedStores &s) {
  auto dstType = cast<MemRefType>(s.target.getType());
  emitIfActive(rw, s.loc, s.active, [&] {
    forEachThreadVector(
        rw, s.loc, tid, blockThreads, s.numVectors,
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

LogicalResult LaunchLowering::lowerCopyCommit(CopyCommitOp op) {
  rw.setInsertionPoint(op);
  auto it = pendingStores.find(op->getBlock());
  if (it != pendingStores.end()) {
    for (const StagedStores &stores : it->second)
      emitStagedStores(stores);
    pendingStores.erase(it);
  }
  if (usesAsyncCopies)
    groupTokens.push_back(nvgpu::DeviceAsyncCreateGroupOp::create(
        rw, op.getLoc(), nvgpu::DeviceAsyncTokenType::get(rw.getContext()),
        ValueRange{}));
  return success();
}

LogicalResult LaunchLowering::lowerCopyWait(CopyWaitOp op) {
  rw.setInsertionPoint(op);
  if (usesAsyncCopies) {
    // nvgpu's wait names a token; the count is what matters (numGroups), so
    // any earlier group's token that dominates the wait will do.
    Value token;
    for (Value t : llvm::reverse(groupTokens))
      if (dominance.properlyDominates(t, op)) {
        token = t;
        break;
      }
    if (!token)
      return op.emitOpError("waits for copy groups before any was committed");
    nvgpu::DeviceAsyncWaitOp::create(rw, op.getLoc(), token,
                                     rw.getI32IntegerAttr(op.getPending()));
  }
  insertBarrier(op.getLoc());
  return success();
}

/// The widest vector (a power of two, at most `vector` elements and 16
/// bytes) in which `op` can store its rows: the tile's and the target's rows
/// hold whole aligned vectors, and the window's column offset is a multiple
/// of the width. Then a vector is wholly inside the target's row or wholly
/// outside it, so one bounds check covers it. Sets `why` when narrower than
/// asked.
int64_t storeVectorWidth(StoreTileOp op, std::string &why) {
  auto src = cast<MemRefType>(op.getSource().getType());
  auto dst = cast<MemRefType>(op.getTarget().getType());
  Type elem = src.getElementType();
  int64_t asked = std::min<int64_t>(op.getVector(), 16 / elementBytes(elem));
  if (asked <= 1 || src.getRank() == 0)
    return 1;
  SmallVector<int64_t> srcStrides;
  int64_t srcOffset;
  if (failed(src.getStridesAndOffset(srcStrides, srcOffset)) ||
      srcStrides.back() != 1 || ShapedType::isDynamic(srcOffset)) {
    why = "the tile's innermost dimension is not contiguous";
    return 1;
  }
  if (!dst.getLayout().isIdentity() || !dst.hasStaticShape()) {
    why = "the target is not a static, row-major memref";
    return 1;
  }
  int64_t rowLen = dst.getShape().back();
  int64_t origin = knownMultiple(op.getOffsets().back());
  auto fits = [&](int64_t w) {
    return rowLen % w == 0 && src.getShape().back() % w == 0 &&
           origin % w == 0 && srcOffset % w == 0 &&
           outerStridesDivisible(srcStrides, w);
  };
  int64_t w = asked;
  while (w > 1 && !fits(w))
    w /= 2;
  if (w < asked) {
    llvm::raw_string_ostream os(why);
    if (rowLen % asked != 0)
      os << "the target's rows are " << rowLen << " elements long";
    else if (src.getShape().back() % asked != 0)
      os << "the tile's rows are " << src.getShape().back()
         << " elements long";
    else if (origin % asked != 0)
      os << "the window's column offset is not known to be a multiple of "
         << asked;
    else
      os << "the tile's row stride is not a multiple of " << asked;
  }
  return w;
}

LogicalResult LaunchLowering::lowerStoreTile(StoreTileOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto srcType = cast<MemRefType>(op.getSource().getType());
  Type elem = srcType.getElementType();
  std::string why;
  int64_t width = storeVectorWidth(op, why);
  if (!why.empty())
    op.emitRemark() << "stores " << width << " element(s) at a time instead of "
                    << std::min<int64_t>(op.getVector(),
                                         16 / elementBytes(elem))
                    << ": " << why;
  unsigned rank = srcType.getRank();
  auto storeOne = [&](Value vecIdx, Value) {
    SmallVector<Value> srcIdx =
        vectorStart(rw, loc, srcType.getShape(), width, vecIdx);
    SmallVector<Value> dstIdx(rank), inBounds;
    for (unsigned d = 0; d < rank; ++d) {
      dstIdx[d] = arith::AddIOp::create(rw, loc, op.getOffsets()[d], srcIdx[d]);
      Value dim = memref::DimOp::create(rw, loc, op.getTarget(), d);
      inBounds.push_back(arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::ult, dstIdx[d], dim));
    }
    scf::IfOp::create(rw, loc, andAll(rw, loc, inBounds),
                      [&](OpBuilder &b, Location l) {
                        Value v =
                            loadElements(b, l, op.getSource(), srcIdx, width);
                        storeElements(b, l, v, op.getTarget(), dstIdx, width);
                        scf::YieldOp::create(b, l);
                      });
  };
  // The tile's writers (the epilogue's fragment stores) are done before any
  // thread reads it; its readers are done before anything overwrites it (the
  // next work unit's epilogue, or a buffer sharing its bytes).
  insertBarrier(loc);
  forEachThreadVector(rw, loc, tid, blockThreads,
                      srcType.getNumElements() / width, storeOne);
  rw.setInsertionPointAfter(op);
  insertBarrier(loc);
  return success();
}

LogicalResult LaunchLowering::checkFragmentAccess(TileComputeOp op,
                                                  Value operand,
                                                  AffineMap map) {
  const FragmentInfo &info = fragments.lookup(operand);
  if (info.layout != op.getLayoutOrDefault())
    return op.emitOpError() << "accesses a fragment of layout " << info.layout
                            << " with layout " << op.getLayoutOrDefault()
                            << "; a fragment's threads hold its points by "
                               "its own layout";
  SmallVector<AxisAttr> axes = op.getAxisList();
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    unsigned a = dim ? dim.getPosition() : 0;
    if (!dim || axes[a].isReduce() || op.getThreads()[a] != info.threads[d] ||
        info.shape[d] != axes[a].getExtent())
      return op.emitOpError()
             << "accesses a fragment through dimension #" << d
             << " in a way its thread distribution does not match; a "
                "fragment must be indexed by spatial axes with the same "
                "tile size and threads";
  }
  return success();
}

SmallVector<Value> LaunchLowering::accessIndices(TileComputeOp op,
                                                 Value operand, AffineMap map,
                                                 ArrayRef<Value> points,
                                                 ArrayRef<Value> locals) {
  SmallVector<Value> idx;
  bool isFragment = fragments.count(operand);
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      idx.push_back(isFragment ? locals[dim.getPosition()]
                               : points[dim.getPosition()]);
      continue;
    }
    idx.push_back(
        affine::expandAffineExpr(rw, op.getLoc(), e, points, ValueRange{}));
  }
  return idx;
}

SmallVector<Value> LaunchLowering::combineAcrossThreads(
    TileComputeOp op, ValueRange accs, Value tr, int64_t hr, int64_t stride,
    int64_t numThreads) {
  Location loc = op.getLoc();
  CombinerKind kind = *op.getCombiner();
  SmallVector<Value> v(accs);
  bool shuffleable = llvm::all_of(accs, [](Value a) {
    Type t = a.getType();
    return t.isF32() || t.isInteger(32);
  });
  bool fullWarps = numThreads % 32 == 0;
  if (stride == 1 && shuffleable && (fullWarps || hr <= numThreads)) {
    int64_t width = fullWarps ? 32 : numThreads;
    if (!fullWarps && !llvm::isPowerOf2_64(numThreads))
      width = -1;
    if (width > 0) {
      Value widthV = arith::ConstantIntOp::create(rw, loc, width, 32);
      for (int64_t s = std::min<int64_t>(hr, 32) / 2; s >= 1; s /= 2) {
        Value off = arith::ConstantIntOp::create(rw, loc, s, 32);
        SmallVector<Value> partner;
        for (Value x : v)
          partner.push_back(gpu::ShuffleOp::create(rw, loc, x, off, widthV,
                                                   gpu::ShuffleMode::XOR)
                                .getShuffleResult());
        v = combineAccumulators(rw, loc, kind, op.getReducer(), v, partner);
      }
      if (hr <= 32)
        return v;
      // Across the warps of a group: lane 0 of each warp publishes its
      // value, then the group's thread 0 folds them.
      int64_t warps = hr / 32, groups = numThreads / hr;
      Value group = arith::DivUIOp::create(rw, loc, tid, constIndex(rw, loc, hr));
      Value warp = arith::DivUIOp::create(rw, loc, tr, constIndex(rw, loc, 32));
      Value lane = arith::RemUIOp::create(rw, loc, tr, constIndex(rw, loc, 32));
      SmallVector<Value> scratch;
      for (Value x : v)
        scratch.push_back(newScratch(loc, {groups, warps}, x.getType()));
      insertBarrier(loc); // earlier readers of the scratch are done
      Value isLane0 = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                            lane, constIndex(rw, loc, 0));
      scf::IfOp::create(rw, loc, isLane0, [&](OpBuilder &b, Location l) {
        for (auto [x, s] : llvm::zip(v, scratch))
          memref::StoreOp::create(b, l, x, s, ValueRange{group, warp});
        scf::YieldOp::create(b, l);
      });
      insertBarrier(loc);
      SmallVector<Value> acc;
      for (Value s : scratch)
        acc.push_back(memref::LoadOp::create(
            rw, loc, s, ValueRange{group, constIndex(rw, loc, 0)}));
      auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 1),
                                     constIndex(rw, loc, warps),
                                     constIndex(rw, loc, 1), acc);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> other;
        for (Value s : scratch)
          other.push_back(memref::LoadOp::create(
              rw, loc, s, ValueRange{group, loop.getInductionVar()}));
        SmallVector<Value> carried =
            llvm::to_vector_of<Value>(loop.getRegionIterArgs());
        scf::YieldOp::create(rw, loc,
                             combineAccumulators(rw, loc, kind, op.getReducer(),
                                                 carried, other));
      }
      return llvm::to_vector_of<Value>(loop.getResults());
    }
  }

  // Workgroup-memory tree: log2(hr) halving steps, a barrier after each.
  SmallVector<Value> scratch;
  for (Value x : v)
    scratch.push_back(newScratch(loc, {numThreads}, x.getType()));
  insertBarrier(loc); // earlier readers of the scratch are done
  for (auto [x, s] : llvm::zip(v, scratch))
    memref::StoreOp::create(rw, loc, x, s, tid);
  insertBarrier(loc);
  for (int64_t s = hr / 2; s >= 1; s /= 2) {
    Value active = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, tr,
                                         constIndex(rw, loc, s));
    Value partnerTid =
        arith::AddIOp::create(rw, loc, tid, constIndex(rw, loc, s * stride));
    scf::IfOp::create(rw, loc, active, [&](OpBuilder &b, Location l) {
      SmallVector<Value> mine, theirs;
      for (Value sc : scratch) {
        mine.push_back(memref::LoadOp::create(b, l, sc, tid));
        theirs.push_back(memref::LoadOp::create(b, l, sc, partnerTid));
      }
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
      SmallVector<Value> c =
          combineAccumulators(rw, l, kind, op.getReducer(), mine, theirs);
      for (auto [x, sc] : llvm::zip(c, scratch))
        memref::StoreOp::create(rw, l, x, sc, tid);
      scf::YieldOp::create(rw, l);
    });
    insertBarrier(loc);
  }
  SmallVector<Value> result;
  for (Value sc : scratch)
    result.push_back(memref::LoadOp::create(rw, loc, sc, tid));
  return result;
}

/// What a layout's accumulation strategy sees of the lowering of one op.
class AccumulationContext : public TileAccumulationContext {
public:
  AccumulationContext(LaunchLowering &lowering, TileComputeOp op,
                      ArrayRef<Value> threadCoords, ArrayRef<Value> bounds,
                      function_ref<void()> pointLoops)
      : lowering(lowering), threadCoords(threadCoords), bounds(bounds),
        pointLoops(pointLoops) {}
  RewriterBase &getRewriter() override { return lowering.rw; }
  Value getThreadId() override { return lowering.tid; }
  ArrayRef<Value> getBounds() override { return bounds; }
  Value getFragmentStorage(Value value) override {
    auto it = lowering.fragments.find(value);
    return it == lowering.fragments.end() ? Value() : it->second.storage;
  }
  StringRef getChip() override { return lowering.chip; }
  LogicalResult emitElementwise(TileComputeOp op) override {
    if (pointLoops) {
      pointLoops();
      return success();
    }
    return emitOuterProduct(lowering, op, threadCoords, bounds);
  }

private:
  LaunchLowering &lowering;
  ArrayRef<Value> threadCoords, bounds;
  /// Set when a thread has too many points to unroll: loops over them.
  function_ref<void()> pointLoops;
};

LogicalResult LaunchLowering::lowerTileCompute(TileComputeOp op) {
  Location loc = op.getLoc();
  SmallVector<AxisAttr> axes = op.getAxisList();
  ArrayRef<int64_t> threads = op.getThreads();
  unsigned numAxes = axes.size();
  int64_t numThreads = op.getNumThreads();
  if (numThreads > blockThreads)
    return op.emitOpError() << "runs on " << numThreads
                            << " threads, but the block has " << blockThreads;

  for (auto [i, operand] : llvm::enumerate(op->getOperands().drop_front(
           op.getBounds().size()))) {
    if (fragments.count(operand) &&
        failed(checkFragmentAccess(op, operand, op.getMaps()[i])))
      return failure();
  }

  std::optional<unsigned> threadReduceAxis;
  for (unsigned a = 0; a < numAxes; ++a)
    if (axes[a].isReduce() && threads[a] > 1)
      threadReduceAxis = a;
  if (threadReduceAxis && numThreads != blockThreads)
    return op.emitOpError()
           << "combines across " << numThreads << " threads of a "
           << blockThreads
           << "-thread block; a reduction across threads must use the whole "
              "block (its barriers cannot sit under thread-dependent control "
              "flow)";

  rw.setInsertionPoint(op);
  // Threads beyond the op's thread grid idle (no barrier inside: see above).
  OpBuilder::InsertionGuard guard(rw);
  if (numThreads < blockThreads) {
    Value inGrid = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult,
                                         tid, constIndex(rw, loc, numThreads));
    auto ifOp = scf::IfOp::create(rw, loc, inGrid, /*withElse=*/false);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  SmallVector<Value> t = threadCoords(rw, loc, tid, threads);
  SmallVector<Value> bounds;
  for (unsigned a = 0; a < numAxes; ++a)
    bounds.push_back(op.getBounds().empty()
                         ? constIndex(rw, loc, axes[a].getExtent())
                         : op.getBounds()[a]);
  auto isFullBound = [&](unsigned a) {
    std::optional<int64_t> c = getConstantIntValue(bounds[a]);
    return c && *c == axes[a].getExtent();
  };

  unsigned numInputs = op.getInputs().size();
  SmallVector<AffineMap> maps = op.getMaps();
  SmallVector<Value> points(numAxes), locals(numAxes);
  auto emitBody = [&]() {
    SmallVector<Value> elems;
    for (auto [i, in] : llvm::enumerate(op.getInputs())) {
      Value storage = fragments.count(in) ? fragments[in].storage : in;
      elems.push_back(memref::LoadOp::create(
          rw, loc, storage, accessIndices(op, in, maps[i], points, locals)));
    }
    return inlineComputeRegion(rw, op.getBody(), elems, [&](StringRef name) {
      return points[*op.getAxisPosition(name)];
    });
  };
  auto outputRef = [&](unsigned o) {
    Value out = op.getOutputs()[o];
    Value storage = fragments.count(out) ? fragments[out].storage : out;
    return std::make_pair(storage, accessIndices(op, out, maps[numInputs + o],
                                                 points, locals));
  };

  // Emits the spatial loops (l over each axis' points of this thread); the
  // callback runs inside with `valid` (are all points inside the bounds).
  SmallVector<unsigned> spatial, reduce;
  for (unsigned a = 0; a < numAxes; ++a)
    (axes[a].isSpatial() ? spatial : reduce).push_back(a);
  FragmentLayoutAttrInterface layout = op.getLayoutOrDefault();
  SmallVector<int64_t> spatialShape, spatialThreads;
  SmallVector<Value> spatialCoords;
  for (unsigned a : spatial) {
    spatialShape.push_back(axes[a].getExtent());
    spatialThreads.push_back(threads[a]);
    spatialCoords.push_back(t[a]);
  }
  // How many points of each spatial axis a thread holds, by its layout.
  SmallVector<int64_t> localCounts(numAxes, 1);
  for (auto [s, n] : llvm::enumerate(
           layout.getLocalShape(spatialShape, spatialThreads)))
    localCounts[spatial[s]] = n;
  // A thread's points are unrolled when there are few of them, so that a
  // fragment is indexed by constants and lives in registers.
  int64_t pointsPerThread = 1;
  for (unsigned a : spatial)
    pointsPerThread *= localCounts[a];
  bool unrollPoints = pointsPerThread <= 64;
  auto spatialLoops = [&](function_ref<void(Value valid)> inner) {
    std::function<void(unsigned)> emitAxis = [&](unsigned s) {
      if (s == spatial.size()) {
        SmallVector<Value> spatialLocals;
        for (unsigned a : spatial)
          spatialLocals.push_back(locals[a]);
        SmallVector<Value> pts =
            layout.emitPointIndices(rw, loc, spatialShape, spatialThreads,
                                    spatialCoords, spatialLocals);
        for (auto [a, p] : llvm::zip(spatial, pts))
          points[a] = p;
        SmallVector<Value> conds;
        for (unsigned a : spatial)
          if (!isFullBound(a))
            conds.push_back(arith::CmpIOp::create(
                rw, loc, arith::CmpIPredicate::ult, points[a], bounds[a]));
        inner(conds.empty()
                  ? arith::ConstantIntOp::create(rw, loc, 1, 1).getResult()
                  : andAll(rw, loc, conds));
        return;
      }
      unsigned a = spatial[s];
      int64_t count = localCounts[a];
      auto setPoint = [&](Value l) { locals[a] = l; };
      if (unrollPoints || count == 1) {
        for (int64_t l = 0; l < count; ++l) {
          setPoint(constIndex(rw, loc, l));
          emitAxis(s + 1);
        }
        return;
      }
      OpBuilder::InsertionGuard g(rw);
      auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 0),
                                     constIndex(rw, loc, count),
                                     constIndex(rw, loc, 1));
      rw.setInsertionPoint(loop.getBody()->getTerminator());
      setPoint(loop.getInductionVar());
      emitAxis(s + 1);
    };
    emitAxis(0);
  };
  auto underIf = [&](Value cond, function_ref<void()> body) {
    if (auto c = getConstantIntValue(cond); c && *c == 1)
      return body();
    auto ifOp = scf::IfOp::create(rw, loc, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  };

  unsigned numOutputs = op.getOutputs().size();
  // outputs[p] = combine(outputs[p], values) at the current point.
  auto accumulateIntoOutputs = [&](ValueRange values) {
    SmallVector<Value> accs;
    SmallVector<std::pair<Value, SmallVector<Value>>> refs;
    for (unsigned o = 0; o < numOutputs; ++o) {
      refs.push_back(outputRef(o));
      accs.push_back(memref::LoadOp::create(rw, loc, refs.back().first,
                                            refs.back().second));
    }
    SmallVector<Value> combined = combineAccumulators(
        rw, loc, *op.getCombiner(), op.getReducer(), accs, values);
    for (unsigned o = 0; o < numOutputs; ++o)
      memref::StoreOp::create(rw, loc, combined[o], refs[o].first,
                              refs[o].second);
  };
  bool allFragmentOutputs = llvm::all_of(
      op.getOutputs(), [&](Value v) { return fragments.count(v) != 0; });

  if (!op.hasReduceAxes()) {
    spatialLoops([&](Value valid) {
      underIf(valid, [&] {
        SmallVector<Value> values = emitBody();
        for (unsigned o = 0; o < numOutputs; ++o) {
          auto [storage, idx] = outputRef(o);
          memref::StoreOp::create(rw, loc, values[o], storage, idx);
        }
      });
    });
  } else if (op.getAccumulate() && allFragmentOutputs && !threadReduceAxis) {
    // Too many points per thread to unroll: the reduce loops outermost,
    // every point of the thread's fragment updated in each step.
    auto loopAccumulation = [&] {
      OpBuilder::InsertionGuard g(rw);
      for (unsigned r : reduce) {
        auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 0),
                                       bounds[r], constIndex(rw, loc, 1));
        rw.setInsertionPoint(loop.getBody()->getTerminator());
        points[r] = loop.getInductionVar();
      }
      spatialLoops([&](Value valid) {
        underIf(valid, [&] { accumulateIntoOutputs(emitBody()); });
      });
    };
    auto strategy = dyn_cast<TileAccumulationAttrInterface>(Attribute(layout));
    if (!strategy)
      return op.emitOpError() << "has no accumulation strategy for fragment "
                                 "layout "
                              << layout
                              << " (it does not implement "
                                 "TileAccumulationAttrInterface)";
    AccumulationContext context(
        *this, op, t, bounds,
        unrollPoints ? function_ref<void()>()
                     : function_ref<void()>(loopAccumulation));
    if (failed(strategy.emitAccumulation(context, op)))
      return failure();
  } else {
    // Per point: accumulators through the reduce loops, then (for a reduce
    // axis over threads) a cross-thread combine every thread takes part in.
    spatialLoops([&](Value valid) {
      SmallVector<Type> accTypes;
      SmallVector<Value> inits;
      for (unsigned o = 0; o < numOutputs; ++o) {
        Type elem = cast<MemRefType>(op.getOutputs()[o].getType()).getElementType();
        accTypes.push_back(elem);
        TypedAttr id = op.hasCustomReducer()
                           ? cast<TypedAttr>((*op.getIdentity())[o])
                           : getCombinerIdentity(*op.getCombiner(), elem);
        inits.push_back(arith::ConstantOp::create(rw, loc, elem, id));
      }
      auto partial = scf::IfOp::create(rw, loc, accTypes, valid,
                                       /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(partial.thenBlock());
        SmallVector<Value> accs = inits;
        if (op.getAccumulate() && !threadReduceAxis) {
          accs.clear();
          for (unsigned o = 0; o < numOutputs; ++o) {
            auto [storage, idx] = outputRef(o);
            accs.push_back(memref::LoadOp::create(rw, loc, storage, idx));
          }
        }
        SmallVector<scf::ForOp> loops;
        for (unsigned r : reduce) {
          Value lb = threads[r] == 1 ? constIndex(rw, loc, 0) : t[r];
          auto loop = scf::ForOp::create(rw, loc, lb, bounds[r],
                                         constIndex(rw, loc, threads[r]), accs);
          if (!loops.empty())
            scf::YieldOp::create(rw, loc, loop.getResults());
          loops.push_back(loop);
          points[r] = loop.getInductionVar();
          accs = llvm::to_vector_of<Value>(loop.getRegionIterArgs());
          rw.setInsertionPointToStart(loop.getBody());
        }
        SmallVector<Value> values = emitBody();
        scf::YieldOp::create(rw, loc,
                             combineFused(rw, loc, op, accs, values));
        rw.setInsertionPointAfter(loops.front());
        scf::YieldOp::create(rw, loc, loops.front().getResults());
        rw.setInsertionPointToStart(partial.elseBlock());
        scf::YieldOp::create(rw, loc, inits);
      }
      SmallVector<Value> accs = llvm::to_vector_of<Value>(partial.getResults());
      Value storeCond = valid;
      if (threadReduceAxis) {
        unsigned r = *threadReduceAxis;
        int64_t stride = 1;
        for (unsigned a = r + 1; a < numAxes; ++a)
          stride *= threads[a];
        accs = combineAcrossThreads(op, accs, t[r], threads[r], stride,
                                    numThreads);
        Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                            t[r], constIndex(rw, loc, 0));
        storeCond = arith::AndIOp::create(rw, loc, valid, first);
        if (op.getAccumulate()) {
          // Fold the stored value in after the cross-thread combine.
          underIf(storeCond, [&] { accumulateIntoOutputs(accs); });
          return;
        }
      }
      underIf(storeCond, [&] {
        for (unsigned o = 0; o < numOutputs; ++o) {
          auto [storage, idx] = outputRef(o);
          memref::StoreOp::create(rw, loc, accs[o], storage, idx);
        }
      });
    });
  }
  return success();
}

} // namespace

namespace {

/// How one input of an outer product is read: `width` elements at once along
/// axis `axis` (the axis its innermost index follows with unit stride).
struct SliceRead {
  int axis = -1;
  int64_t width = 1;
  std::string whyNarrow; // set when width < the requested vector
};


LogicalResult emitOuterProduct(LaunchLowering &L, TileComputeOp op,
                               ArrayRef<Value> t, ArrayRef<Value> bounds) {
  IRRewriter &rw = L.rw;
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
    return L.fragments.count(in) || isWorkgroupMemRef(in.getType());
  });
  bool bodySpeculatable = llvm::all_of(
      op.getBodyBlock().without_terminator(),
      [](Operation &inner) { return isPure(&inner) && isSpeculatable(&inner); });
  bool guardPoints = !(inputsInTile && bodySpeculatable) &&
                     !llvm::all_of(spatial, isFull);

  // The innermost reduce axis steps `unroll` points at a time (its reads
  // become vectors); it needs a constant bound that the step divides.
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
  SmallVector<SliceRead> reads(op.getInputs().size());
  SmallVector<AffineMap> maps = op.getMaps();
  for (auto [i, in] : llvm::enumerate(op.getInputs())) {
    SliceRead &r = reads[i];
    auto type = cast<MemRefType>(in.getType());
    int64_t maxWidth =
        std::min<int64_t>(vector, 16 / elementBytes(type.getElementType()));
    if (L.fragments.count(in) || !isWorkgroupMemRef(type) || maxWidth <= 1 ||
        type.getRank() == 0)
      continue;
    AffineMap map = maps[i];
    SmallVector<int64_t> flat;
    if (failed(getFlattenedAffineExpr(map.getResults().back(), numAxes, 0,
                                      &flat))) {
      r.whyNarrow = "its innermost index is not linear in the axes";
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
        unsigned a = used[0];
        int64_t run = 1;
        if (axes[a].isSpatial())
          run = layout.getContiguity(spatialDim[a], spatialShape,
                                     spatialThreads);
        else if (inner && a == *inner)
          run = unroll;
        int64_t w = std::min(maxWidth, run);
        w = w > 0 ? int64_t(1) << llvm::Log2_64(w) : 1;
        auto aligned = [&](int64_t w) {
          if (ShapedType::isDynamic(offset) || offset % w != 0 ||
              flat.back() % w != 0)
            return false;
          return outerStridesDivisible(strides, w);
        };
        while (w > 1 && !aligned(w))
          w /= 2;
        r.axis = a;
        r.width = w;
        if (w < maxWidth) {
          if (run < maxWidth) {
            llvm::raw_string_ostream os(r.whyNarrow);
            os << "a thread holds runs of " << run
               << " consecutive points along axis '" << axes[a].getName()
               << "' (layout " << layout << ")";
          }
          else
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

  // The reduce loops; the innermost steps `unroll` points.
  OpBuilder::InsertionGuard g(rw);
  SmallVector<Value> reduceBase(numAxes);
  for (unsigned r : reduce) {
    int64_t step = inner && r == *inner ? unroll : 1;
    auto loop = scf::ForOp::create(rw, loc, constIndex(rw, loc, 0), bounds[r],
                                   constIndex(rw, loc, step));
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    reduceBase[r] = loop.getInductionVar();
  }

  // A key names an element of a thread's slice by the local index of every
  // spatial axis and the step within the unrolled reduce axis (-1: unused).
  using Key = SmallVector<int64_t>;
  SmallVector<int64_t> counts(numAxes, 1);
  for (auto [s, n] : llvm::enumerate(
           layout.getLocalShape(spatialShape, spatialThreads)))
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
    if (L.fragments.count(in)) {
      Value v = memref::LoadOp::create(
          rw, loc, L.fragments[in].storage,
          L.accessIndices(op, in, maps[i], points, locals));
      return slices[i][key] = v;
    }
    SmallVector<Value> idx = L.accessIndices(op, in, maps[i], points, locals);
    if (r.width == 1) {
      Value v = memref::LoadOp::create(rw, loc, in, idx);
      return slices[i][key] = v;
    }
    Type elem = cast<MemRefType>(in.getType()).getElementType();
    auto vecType = VectorType::get({r.width}, elem);
    Value vec = vector::LoadOp::create(
        rw, loc, vecType, in, idx, /*nontemporal=*/false,
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
      auto [points, locals] = pointsOf(key);
      auto update = [&] {
        SmallVector<Value> elems;
        for (unsigned i = 0; i < numInputs; ++i)
          elems.push_back(element(i, key));
        SmallVector<Value> values = inlineComputeRegion(
            rw, op.getBody(), elems,
            [&](StringRef name) { return points[*op.getAxisPosition(name)]; });
        SmallVector<Value> accs;
        SmallVector<SmallVector<Value>> idx;
        for (unsigned o = 0; o < numOutputs; ++o) {
          Value out = op.getOutputs()[o];
          idx.push_back(L.accessIndices(op, out, maps[numInputs + o], points,
                                        locals));
          accs.push_back(memref::LoadOp::create(
              rw, loc, L.fragments[out].storage, idx.back()));
        }
        SmallVector<Value> combined = combineFused(rw, loc, op, accs, values);
        for (unsigned o = 0; o < numOutputs; ++o)
          memref::StoreOp::create(rw, loc, combined[o],
                                  L.fragments[op.getOutputs()[o]].storage,
                                  idx[o]);
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
  return success();
}


LogicalResult LaunchLowering::run() {
  SmallVector<Operation *> tileOps;
  launch.getBody().walk([&](Operation *op) {
    if (isa<AllocFragmentOp, CopyOp, CopyCommitOp, CopyWaitOp, StoreTileOp,
            TileComputeOp>(op))
      tileOps.push_back(op);
    if (auto copy = dyn_cast<CopyOp>(op);
        copy && copy.getStaged() == CopyStaging::async) {
      std::string why;
      Type elem = cast<MemRefType>(copy.getTarget().getType()).getElementType();
      if (isAsyncCopyWidth(copyVectorWidth(copy, why) * elementBytes(elem)))
        usesAsyncCopies = true;
    }
  });
  if (tileOps.empty())
    return success();

  std::optional<int64_t> bx = getConstantIntValue(launch.getBlockSizeX());
  std::optional<int64_t> by = getConstantIntValue(launch.getBlockSizeY());
  std::optional<int64_t> bz = getConstantIntValue(launch.getBlockSizeZ());
  if (!bx || !by || !bz || *by != 1 || *bz != 1)
    return launch.emitOpError("with ext tile ops needs a constant "
                              "one-dimensional block size");
  blockThreads = *bx;
  rw.setInsertionPointToStart(&launch.getBody().front());
  tid = gpu::ThreadIdOp::create(rw, launch.getLoc(), gpu::Dimension::x);

  llvm::SetVector<scf::ForOp> copyLoops;
  for (auto [i, op] : llvm::enumerate(tileOps)) {
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](AllocFragmentOp f) { return lowerFragment(f); })
            .Case([&](CopyOp c) { return lowerCopy(c); })
            .Case([&](StoreTileOp st) { return lowerStoreTile(st); })
            .Case([&](CopyCommitOp c) { return lowerCopyCommit(c); })
            .Case([&](CopyWaitOp w) { return lowerCopyWait(w); })
            .Case([&](TileComputeOp tc) { return lowerTileCompute(tc); });
    if (failed(result))
      return failure();
    auto copy = dyn_cast<CopyOp>(op);
    // Staged copies synchronize through ext.copy_wait.
    if (!copy || copy.getStaged())
      continue;
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        cast<MemRefType>(copy.getTarget().getType()).getMemorySpace());
    if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
      continue;
    // Other threads read what this copy wrote: a barrier after the group
    // of copies it belongs to (index arithmetic between copies does not end
    // the group).
    Operation *next = op->getNextNode();
    while (next && next->getNumRegions() == 0 && isMemoryEffectFree(next))
      next = next->getNextNode();
    if (!isa_and_nonnull<CopyOp>(next) || cast<CopyOp>(next).getStaged()) {
      rw.setInsertionPointAfter(op);
      insertBarrier(op->getLoc());
    }
    if (auto loop = op->getParentOfType<scf::ForOp>();
        loop && launch->isProperAncestor(loop))
      copyLoops.insert(loop);
  }
  // The next iteration's copies overwrite what this iteration's compute
  // reads: a barrier at the end of every loop that copies into shared memory.
  for (scf::ForOp loop : copyLoops) {
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    insertBarrier(loop.getLoc());
  }
  for (Operation *op : llvm::reverse(tileOps)) {
    if (auto frag = dyn_cast<AllocFragmentOp>(op)) {
      if (!frag->use_empty())
        frag.getResult().replaceAllUsesWith(fragments[frag.getResult()].storage);
    }
    rw.eraseOp(op);
  }
  return success();
}

} // namespace

namespace {
/// The element-wise layouts' strategy: register blocking.
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

void ext::registerTileAccumulationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, ExtDialect *) {
    CyclicLayoutAttr::attachInterface<
        ElementwiseAccumulationModel<CyclicLayoutAttr>>(*ctx);
    BlockedLayoutAttr::attachInterface<
        ElementwiseAccumulationModel<BlockedLayoutAttr>>(*ctx);
    attachMmaAccumulationModel(ctx);
  });
}

LogicalResult ext::lowerTileOpsToThreads(gpu::LaunchOp launch, int dropBarrier,
                                         int *barrierCount, StringRef chip) {
  // Register blocking emits math.fma and vector loads, tensor cores nvgpu
  // and amdgpu ops, through the layouts' strategies. Under the pass they
  // are its dependent dialects and extensions (already loaded); a C++
  // caller may not have loaded them.
  MLIRContext *ctx = launch.getContext();
  DialectRegistry registry;
  registerTileAccumulationModels(registry);
  ctx->appendDialectRegistry(registry);
  ctx->getOrLoadDialect<math::MathDialect>();
  ctx->getOrLoadDialect<vector::VectorDialect>();
  ctx->getOrLoadDialect<nvgpu::NVGPUDialect>();
  ctx->getOrLoadDialect<amdgpu::AMDGPUDialect>();
  int local = 0;
  return LaunchLowering(launch, barrierCount ? *barrierCount : local,
                        dropBarrier, chip)
      .run();
}

namespace {

struct ExtTileOpsToThreadsPass
    : ext::impl::ExtTileOpsToThreadsBase<ExtTileOpsToThreadsPass> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTileAccumulationModels(registry);
  }
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    int counter = 0;
    for (gpu::LaunchOp launch : launches)
      if (failed(lowerTileOpsToThreads(launch, dropBarrier, &counter, chip)))
        return signalPassFailure();
    // Tile ops outside any launch have no threads to run on.
    WalkResult r = getOperation()->walk([](Operation *op) {
      if (isa<CopyOp, CopyCommitOp, CopyWaitOp, StoreTileOp, TileComputeOp,
              AllocFragmentOp>(op)) {
        op->emitOpError("must be inside a gpu.launch to be lowered to "
                        "threads; run ext-kernel-to-gpu first");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
