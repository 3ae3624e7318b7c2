//===- AllocSharedToWorkgroup.cpp - ext.alloc_shared to workgroup buffers -===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"
#include "ext/GPU/WorkgroupAttributions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

/// The swizzled flat offset of element `indices` of a row-major tile.
Value swizzledOffset(OpBuilder &b, Location loc, MemRefType type,
                     SwizzleAttr swizzle, ValueRange indices) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value linear;
  int64_t stride = 1;
  for (int d = type.getRank() - 1; d >= 0; --d) {
    Value term = stride == 1 ? indices[d]
                             : arith::MulIOp::create(b, loc, indices[d],
                                                     constant(stride))
                                   .getResult();
    linear = linear ? arith::AddIOp::create(b, loc, term, linear).getResult()
                    : term;
    stride *= type.getDimSize(d);
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

/// Rewrites every access of the swizzled tile `op` into one of `flat`.
LogicalResult lowerSwizzled(RewriterBase &rw, AllocSharedOp op, Value flat) {
  auto type = cast<MemRefType>(op.getType());
  SwizzleAttr swizzle = *op.getSwizzle();
  // Check every use first: fail before changing anything.
  for (Operation *user : op->getUsers())
    if (!isa<memref::LoadOp, memref::StoreOp>(user) ||
        (isa<memref::StoreOp>(user) &&
         cast<memref::StoreOp>(user).getValueToStore() == op.getResult()))
      return user->emitOpError()
             << "uses a swizzled shared tile; only memref.load and "
                "memref.store of it can be rewritten (run "
                "ext-tile-ops-to-threads first)";
  for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
    rw.setInsertionPoint(user);
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Value at = swizzledOffset(rw, load.getLoc(), type, swizzle,
                                load.getIndices());
      rw.replaceOpWithNewOp<memref::LoadOp>(load, flat, ValueRange{at});
      continue;
    }
    auto store = cast<memref::StoreOp>(user);
    Value at = swizzledOffset(rw, store.getLoc(), type, swizzle,
                              store.getIndices());
    rw.replaceOpWithNewOp<memref::StoreOp>(store, store.getValueToStore(),
                                           flat, ValueRange{at});
  }
  rw.eraseOp(op);
  return success();
}

} // namespace

FailureOr<Value> ext::lowerAllocSharedToWorkgroup(RewriterBase &rw,
                                                  AllocSharedOp op) {
  auto type = cast<MemRefType>(op.getType());
  if (op.getSwizzle()) {
    // The swizzled layout is no strided view: every access is rewritten.
    OpBuilder::InsertionGuard guard(rw);
    FailureOr<Value> buffer = addWorkgroupBuffer(op, type.getElementType(),
                                                 type.getNumElements());
    if (failed(buffer))
      return op.emitOpError("must be inside a gpu.launch or gpu.func to get "
                            "workgroup memory");
    if (failed(lowerSwizzled(rw, op, *buffer)))
      return failure();
    return buffer;
  }
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
  return view;
}

namespace {

struct ExtAllocSharedToWorkgroupPass
    : ext::impl::ExtAllocSharedToWorkgroupBase<ExtAllocSharedToWorkgroupPass> {
  void runOnOperation() override {
    SmallVector<AllocSharedOp> allocs;
    getOperation()->walk([&](AllocSharedOp op) { allocs.push_back(op); });
    IRRewriter rw(&getContext());
    for (AllocSharedOp op : allocs)
      if (failed(lowerAllocSharedToWorkgroup(rw, op)))
        return signalPassFailure();
  }
};

} // namespace
