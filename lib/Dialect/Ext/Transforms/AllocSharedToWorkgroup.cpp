//===- AllocSharedToWorkgroup.cpp - ext.alloc_shared to workgroup buffers -===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/StageSelect.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"
#include "ext/GPU/WorkgroupAttributions.h"

#include "TileLoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {
#define GEN_PASS_DEF_EXTALLOCSHAREDTOWORKGROUP
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// Adds a flat workgroup buffer of `elems` elements to the launch or kernel
/// function enclosing `op`.
FailureOr<Value> addWorkgroupBuffer(Operation *op, Type elem, int64_t elems) {
  MLIRContext *ctx = op->getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({elems}, elem, MemRefLayoutAttrInterface(), space);
  if (auto launch = op->getParentOfType<gpu::LaunchOp>())
    return Value(ext::addWorkgroupAttribution(launch, type, op->getLoc()));
  if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
    return Value(ext::addWorkgroupAttribution(func, type, op->getLoc()));
  return failure();
}

/// The swizzled flat offset of element `indices` of a row-major tile (of
/// column panels, with the swizzle's `panel`).
Value swizzledOffset(OpBuilder &b, Location loc, MemRefType type,
                     SwizzleAttr swizzle, ValueRange indices) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  SmallVector<Value> idx(indices);
  SmallVector<int64_t> shape(type.getShape());
  Value panelStart;
  int64_t panel = swizzle.getPanel();
  if (panel && !shape.empty() && panel < shape.back()) {
    // Panel j / P starts after the earlier panels' (numElements / C) * P
    // elements; within it, the tile is row-major with rows of P.
    Value j = idx.back();
    int64_t panelSize = type.getNumElements() / shape.back() * panel;
    // One op per statement: the IR must not depend on the compiler's order
    // of evaluating arguments.
    Value panelIndex = arith::DivUIOp::create(b, loc, j, constant(panel));
    panelStart =
        arith::MulIOp::create(b, loc, panelIndex, constant(panelSize));
    idx.back() = arith::RemUIOp::create(b, loc, j, constant(panel));
    shape.back() = panel;
  }
  Value linear = panelStart;
  int64_t stride = 1;
  for (int d = shape.size() - 1; d >= 0; --d) {
    Value term = stride == 1
                     ? idx[d]
                     : arith::MulIOp::create(b, loc, idx[d], constant(stride))
                           .getResult();
    linear = linear ? arith::AddIOp::create(b, loc, term, linear).getResult()
                    : term;
    stride *= shape[d];
  }
  if (!linear)
    return constant(0);
  if (swizzle.getBits() == 0)
    return linear;
  // o ^ ((o >> shift) & mask): indices are in bounds, so non-negative.
  Value shifted = arith::ShRUIOp::create(b, loc, linear,
                                         constant(swizzle.getShift()));
  int64_t mask = ((int64_t(1) << swizzle.getBits()) - 1) << swizzle.getBase();
  Value bits = arith::AndIOp::create(b, loc, shifted, constant(mask));
  return arith::XOrIOp::create(b, loc, linear, bits);
}

/// An access of a swizzled tile: its indices and the elements it moves as
/// one contiguous run from them (1 for a scalar).
struct SwizzledAccess {
  OperandRange indices;
  int64_t run = 1;
};

/// What `user` reads or writes of the tile `tile`, if it can be rewritten:
/// scalar loads and stores, vector loads and stores, the destination of a
/// cp.async and the rows of an ldmatrix.
std::optional<SwizzledAccess> accessOf(Operation *user, Value tile) {
  if (auto load = dyn_cast<memref::LoadOp>(user))
    return SwizzledAccess{load.getIndices(), 1};
  if (auto store = dyn_cast<memref::StoreOp>(user);
      store && store.getMemRef() == tile)
    return SwizzledAccess{store.getIndices(), 1};
  if (auto load = dyn_cast<vector::LoadOp>(user);
      load && load.getVectorType().getRank() == 1)
    return SwizzledAccess{load.getIndices(),
                          load.getVectorType().getNumElements()};
  if (auto store = dyn_cast<vector::StoreOp>(user);
      store && store.getBase() == tile && store.getVectorType().getRank() == 1)
    return SwizzledAccess{store.getIndices(),
                          store.getVectorType().getNumElements()};
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user);
      copy && copy.getDst() == tile && copy.getSrc() != tile)
    return SwizzledAccess{copy.getDstIndices(),
                          int64_t(copy.getDstElements().getZExtValue())};
  if (auto ptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user))
    return SwizzledAccess{ptr->getOperands().take_front(0), 1}; // the base
  // A bulk tensor copy writes the whole tile from its base, swizzled by the
  // copy engine as the tile is.
  if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(user);
      load && load.getDst() == tile)
    return SwizzledAccess{load->getOperands().take_front(0), 1};
  if (auto ldmatrix = dyn_cast<nvgpu::LdMatrixOp>(user)) {
    int64_t bits = ldmatrix.getSrcMemref().getType().getElementTypeBitWidth();
    return SwizzledAccess{ldmatrix.getIndices(), 128 / bits}; // 16-byte rows
  }
  return std::nullopt;
}

/// Rewrites every access of the swizzled tiles `allocs` into their flat
/// buffers. Selects among them (the stages of a pipelined k-loop) become
/// selects among the flat buffers. A run of 2^p elements starting at a
/// multiple of 2^p, p <= the swizzle's base, stays contiguous (the XOR
/// moves bits at and above the base), so vector and row accesses keep their
/// width where that is proven.
LogicalResult lowerSwizzled(RewriterBase &rw, ArrayRef<AllocSharedOp> allocs) {
  llvm::MapVector<Value, std::pair<Value, AllocSharedOp>> flatOf;
  for (AllocSharedOp op : allocs) {
    auto type = cast<MemRefType>(op.getType());
    FailureOr<Value> flat =
        addWorkgroupBuffer(op, type.getElementType(), type.getNumElements());
    if (failed(flat))
      return op.emitOpError("must be inside a gpu.launch or gpu.func to get "
                            "workgroup memory");
    flatOf[op.getResult()] = {*flat, op};
  }
  SmallVector<arith::SelectOp> selects;
  for (size_t i = 0; i < flatOf.size(); ++i) {
    Value tile = flatOf.begin()[i].first;
    for (Operation *user : tile.getUsers()) {
      auto select = dyn_cast<arith::SelectOp>(user);
      if (!select || flatOf.count(select.getResult()))
        continue;
      auto t = flatOf.find(select.getTrueValue());
      auto f = flatOf.find(select.getFalseValue());
      if (t == flatOf.end() || f == flatOf.end() ||
          t->second.second.getType() != f->second.second.getType() ||
          t->second.second.getSwizzle() != f->second.second.getSwizzle())
        continue; // reported below as an unsupported use
      AllocSharedOp origin = t->second.second;
      rw.setInsertionPoint(select);
      auto flat =
          arith::SelectOp::create(rw, select.getLoc(), select.getCondition(),
                                  t->second.first, f->second.first);
      // Still a chain over stage tiles (StageSelect.h): reuse folds it.
      if (select->hasAttr(kStageSelectAttrName))
        flat->setAttr(kStageSelectAttrName, rw.getUnitAttr());
      // (Inserting may move the entries `t` and `f` point to.)
      flatOf[select.getResult()] = {flat, origin};
      selects.push_back(select);
    }
  }
  auto isLowered = [&](Operation *user) {
    auto select = dyn_cast<arith::SelectOp>(user);
    return select && flatOf.count(select.getResult());
  };
  // Check every use first: fail before changing anything.
  for (auto &[tile, entry] : flatOf) {
    AllocSharedOp origin = entry.second;
    auto type = cast<MemRefType>(origin.getType());
    SwizzleAttr swizzle = *origin.getSwizzle();
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int d = type.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * type.getDimSize(d + 1);
    for (Operation *user : tile.getUsers()) {
      if (isLowered(user))
        continue;
      std::optional<SwizzledAccess> access = accessOf(user, tile);
      if (!access)
        return user->emitOpError()
               << "uses a swizzled shared tile; only memref.load/store, "
                  "vector.load/store, cp.async into it, ldmatrix from it, "
                  "its address and selects among such tiles can be "
                  "rewritten (run "
                  "ext-tile-ops-to-threads first)";
      if (access->run == 1)
        continue;
      int64_t known = int64_t(1) << 62;
      for (auto [idx, stride] : llvm::zip(access->indices, strides)) {
        // A dynamic or negative stride says nothing about alignment.
        int64_t strideMultiple =
            stride > 0 && !ShapedType::isDynamic(stride) ? stride : 1;
        known = std::gcd(known, tile_lowering::multipleOfProduct(
                                    tile_lowering::knownMultiple(idx),
                                    strideMultiple));
      }
      int64_t run = access->run;
      if (!llvm::isPowerOf2_64(run) ||
          run > (int64_t(1) << swizzle.getBase()) || known % run != 0)
        return user->emitOpError()
               << "moves " << run << " contiguous elements of a shared tile "
               << "swizzled by " << swizzle << ", which keeps runs of "
               << (int64_t(1) << swizzle.getBase())
               << " together; the run must be a power of two that fits and "
                  "starts at a multiple of its length"
               << (known % run ? " (its start is not known to)" : "");
    }
  }
  for (auto &[tile, entry] : flatOf) {
    auto [flat, origin] = entry;
    auto type = cast<MemRefType>(origin.getType());
    SwizzleAttr swizzle = *origin.getSwizzle();
    for (Operation *user : llvm::make_early_inc_range(tile.getUsers())) {
      if (isLowered(user))
        continue;
      rw.setInsertionPoint(user);
      if (auto ptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        // The tile's first element is the flat buffer's (offset 0).
        rw.replaceOpWithNewOp<memref::ExtractAlignedPointerAsIndexOp>(ptr,
                                                                      flat);
        continue;
      }
      if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(user)) {
        // The copy's box over the flat buffer, row-major from its start.
        SmallVector<ReassociationIndices> all(1);
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.front().push_back(d);
        auto flatType = cast<MemRefType>(flat.getType());
        auto boxType = MemRefType::get(type.getShape(), type.getElementType(),
                                       MemRefLayoutAttrInterface(),
                                       flatType.getMemorySpace());
        Value box = memref::ExpandShapeOp::create(
            rw, load.getLoc(), boxType, flat, all);
        rw.modifyOpInPlace(load, [&] { load.getDstMutable().assign(box); });
        continue;
      }
      Location loc = user->getLoc();
      Value at =
          swizzledOffset(rw, loc, type, swizzle, accessOf(user, tile)->indices);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        rw.replaceOpWithNewOp<memref::LoadOp>(load, flat, ValueRange{at});
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        rw.replaceOpWithNewOp<memref::StoreOp>(store, store.getValueToStore(),
                                               flat, ValueRange{at});
      } else if (auto load = dyn_cast<vector::LoadOp>(user)) {
        rw.replaceOpWithNewOp<vector::LoadOp>(load, load.getVectorType(), flat,
                                              ValueRange{at});
      } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
        rw.replaceOpWithNewOp<vector::StoreOp>(store, store.getValueToStore(),
                                               flat, ValueRange{at});
      } else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user)) {
        rw.replaceOpWithNewOp<nvgpu::DeviceAsyncCopyOp>(
            copy, copy.getAsyncToken().getType(), flat, ValueRange{at},
            copy.getSrc(), copy.getSrcIndices(), copy.getDstElementsAttr(),
            copy.getSrcElements(), copy.getBypassL1Attr());
      } else {
        auto ldmatrix = cast<nvgpu::LdMatrixOp>(user);
        rw.replaceOpWithNewOp<nvgpu::LdMatrixOp>(
            ldmatrix, ldmatrix.getRes().getType(), flat, ValueRange{at},
            ldmatrix.getTranspose(), ldmatrix.getNumTiles());
      }
    }
  }
  for (arith::SelectOp select : llvm::reverse(selects))
    rw.eraseOp(select);
  for (AllocSharedOp op : allocs)
    rw.eraseOp(op);
  return success();
}

} // namespace

LogicalResult ext::lowerAllocSharedToWorkgroup(RewriterBase &rw,
                                               ArrayRef<AllocSharedOp> ops) {
  SmallVector<AllocSharedOp> swizzled;
  for (AllocSharedOp op : ops) {
    if (op.getSwizzle()) {
      swizzled.push_back(op);
      continue;
    }
    auto type = cast<MemRefType>(op.getType());
    // The op verified, so its padded size fits.
    SmallVector<int64_t> strides =
        *AllocSharedOp::computeAlignedStrides(type.getShape(), op.getAligns());
    int64_t elems = type.getRank() == 0 ? 1 : strides[0] * type.getShape()[0];
    FailureOr<Value> buffer =
        addWorkgroupBuffer(op, type.getElementType(), elems);
    if (failed(buffer))
      return op.emitOpError("must be inside a gpu.launch or gpu.func to get "
                            "workgroup memory");
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(op);
    SmallVector<OpFoldResult> sizes, strideVals;
    for (int64_t s : type.getShape())
      sizes.push_back(rw.getIndexAttr(s));
    for (int64_t s : strides)
      strideVals.push_back(rw.getIndexAttr(s));
    Value view = memref::ReinterpretCastOp::create(
        rw, op.getLoc(), type, *buffer, rw.getIndexAttr(0), sizes, strideVals);
    rw.replaceOp(op, view);
  }
  // The swizzled layout is no strided view: every access is rewritten.
  OpBuilder::InsertionGuard guard(rw);
  return swizzled.empty() ? success() : lowerSwizzled(rw, swizzled);
}

namespace {

struct ExtAllocSharedToWorkgroupPass
    : ext::impl::ExtAllocSharedToWorkgroupBase<ExtAllocSharedToWorkgroupPass> {
  void runOnOperation() override {
    SmallVector<AllocSharedOp> allocs;
    getOperation()->walk([&](AllocSharedOp op) { allocs.push_back(op); });
    IRRewriter rw(&getContext());
    if (failed(lowerAllocSharedToWorkgroup(rw, allocs)))
      return signalPassFailure();
  }
};

} // namespace
