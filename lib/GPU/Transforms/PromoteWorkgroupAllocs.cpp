//===- PromoteWorkgroupAllocs.cpp - workgroup allocs to attributions ------===//
//
// memref.alloc/alloca in #gpu.address_space<workgroup> inside a gpu.func
// become workgroup attributions of that function, which upstream's GPU to
// NVVM/ROCDL conversions lower to addrspace(3) globals.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/BufferFootprint.h"
#include "ext/GPU/Transforms/Transforms.h"
#include "ext/GPU/WorkgroupAttributions.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUPROMOTEWORKGROUPALLOCS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kAlignAttrName = "llvm.align";
constexpr int64_t kSharedAlignment = 16;

bool isWorkgroupMemRef(MemRefType type) {
  return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// Rewrites one workgroup allocation in `func`; false (with a diagnostic)
/// when it cannot be given static storage.
bool promote(gpu::GPUFuncOp func, Operation *alloc, IRRewriter &rewriter) {
  auto type = cast<MemRefType>(alloc->getResult(0).getType());
  if (!type.hasStaticShape()) {
    alloc->emitError()
        << "dynamically sized workgroup allocation " << type
        << " cannot be given static shared memory; use a static shape (or "
           "dynamic shared memory through the launch)";
    return false;
  }
  FailureOr<int64_t> span = ext::getSpannedElements(type);
  if (failed(span)) {
    alloc->emitError() << "workgroup allocation " << type
                       << " has a layout without static strides and offset";
    return false;
  }

  Location loc = alloc->getLoc();
  Value replacement;
  if (type.getLayout().isIdentity()) {
    replacement = ext::addWorkgroupAttribution(func, type, loc);
  } else {
    auto flatType = MemRefType::get({*span}, type.getElementType(),
                                    MemRefLayoutAttrInterface(),
                                    type.getMemorySpace());
    Value flat = ext::addWorkgroupAttribution(func, flatType, loc);
    SmallVector<int64_t> strides;
    int64_t offset;
    (void)type.getStridesAndOffset(strides, offset);
    rewriter.setInsertionPointToStart(&func.getBody().front());
    replacement = memref::ReinterpretCastOp::create(
        rewriter, loc, type, flat, offset, type.getShape(), strides);
  }

  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      rewriter.eraseOp(user);
  rewriter.replaceOp(alloc, replacement);
  return true;
}

} // namespace

LogicalResult ext::promoteWorkgroupAllocs(gpu::GPUFuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<Operation *> allocs;
  func.walk([&](Operation *op) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      return;
    if (isWorkgroupMemRef(cast<MemRefType>(op->getResult(0).getType())))
      allocs.push_back(op);
  });
  bool ok = true;
  for (Operation *alloc : allocs)
    ok &= promote(func, alloc, rewriter);
  // 16-byte vector accesses (ld.shared.v4, ds_read_b128) need their buffer
  // aligned to 16; the lowering aligns a global only as asked.
  for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i)
    if (!func.getWorkgroupAttributionAttr(i, kAlignAttrName))
      func.setWorkgroupAttributionAttr(
          i, kAlignAttrName, rewriter.getI64IntegerAttr(kSharedAlignment));
  return success(ok);
}

namespace {

struct ExtGPUPromoteWorkgroupAllocsPass
    : ext::impl::ExtGPUPromoteWorkgroupAllocsBase<ExtGPUPromoteWorkgroupAllocsPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      ok &= succeeded(ext::promoteWorkgroupAllocs(func));
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
