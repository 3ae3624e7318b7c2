//===- AllocSharedToWorkgroup.cpp - ext.alloc_shared to workgroup buffers -===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"
#include "ext/GPU/WorkgroupAttributions.h"

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

} // namespace

FailureOr<Value> ext::lowerAllocSharedToWorkgroup(RewriterBase &rw,
                                                  AllocSharedOp op) {
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
