//===- AsyncCopyToEmulation.cpp - nvgpu async copies on the CPU -----------===//
//
// nvgpu.device_async_copy, _create_group and _wait become calls into the
// runtime, which keeps each thread's copies in flight and lands them (writes
// shared memory, tells the race detector) when a wait covers their group or
// earlier, where the seeded scheduler picks: a missing or weakened wait then
// reads stale shared memory, as on hardware.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace ext;

namespace {

/// Tokens only order the ops; once lowered, their uses go with them. A
/// token still used (by a later wait) is replaced by a placeholder that dies
/// with its last user.
void replaceToken(PatternRewriter &rewriter, Operation *op) {
  if (op->use_empty()) {
    rewriter.eraseOp(op);
    return;
  }
  rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(
      op, op->getResultTypes(), ValueRange{});
}

void eraseDeadPlaceholder(PatternRewriter &rewriter, Value token) {
  auto cast = token.getDefiningOp<UnrealizedConversionCastOp>();
  if (cast && cast.getNumOperands() == 0 && cast->use_empty())
    rewriter.eraseOp(cast);
}

struct AsyncCopyLowering : EmulationOpPattern<nvgpu::DeviceAsyncCopyOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::DeviceAsyncCopyOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    b.setInsertionPoint(op);
    auto dstType = cast<MemRefType>(op.getDst().getType());
    int64_t elementBytes = emu.byteSize(dstType.getElementType());
    auto address = [&](Value memref, ValueRange indices) -> Value {
      return arith::IndexCastOp::create(
          b, l, b.getI64Type(),
          emitElementAddress(b, l, memref, indices, elementBytes));
    };
    Value dst = address(op.getDst(), op.getDstIndices());
    Value src = address(op.getSrc(), op.getSrcIndices());
    Value bytes = emuIndexConst(b, l, elementBytes);
    Value dstElements = emuIndexConst(b, l, op.getDstElements().getZExtValue());
    Value srcElements = op.getSrcElements() ? op.getSrcElements() : dstElements;
    auto toBytes = [&](Value elements) -> Value {
      return arith::IndexCastOp::create(
          b, l, b.getI64Type(), arith::MulIOp::create(b, l, elements, bytes));
    };
    emu.call(b, l, EXT_EMU_ASYNC_COPY, {},
             {dst, src, toBytes(dstElements), toBytes(srcElements),
              emu.function().site(b, op)});
    replaceToken(rewriter, op);
    return success();
  }
};

struct AsyncCreateGroupLowering
    : EmulationOpPattern<nvgpu::DeviceAsyncCreateGroupOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::DeviceAsyncCreateGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    emu.call(rewriter, op.getLoc(), EXT_EMU_ASYNC_COMMIT, {}, {});
    SmallVector<Value> inputs(op.getInputTokens());
    replaceToken(rewriter, op);
    for (Value token : inputs)
      eraseDeadPlaceholder(rewriter, token);
    return success();
  }
};

struct AsyncWaitLowering : EmulationOpPattern<nvgpu::DeviceAsyncWaitOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::DeviceAsyncWaitOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location l = op.getLoc();
    b.setInsertionPoint(op);
    // No count waits for every group, as cp.async.wait_all.
    int64_t pending = op.getNumGroups() ? *op.getNumGroups() : 0;
    emu.call(b, l, EXT_EMU_ASYNC_WAIT, {},
             {emuI32Const(b, l, pending), emu.function().site(b, op)});
    Value token = op.getAsyncDependencies();
    rewriter.eraseOp(op);
    eraseDeadPlaceholder(rewriter, token);
    return success();
  }
};

} // namespace

void ext::populateNVGPUAsyncCopyToEmulationPatterns(RewritePatternSet &patterns,
                                                    EmulationModule &emu) {
  patterns.add<AsyncCopyLowering, AsyncCreateGroupLowering, AsyncWaitLowering>(
      emu);
}
