//===- WarpgroupMmaToEmulation.cpp - sm_90 wgmma on the CPU ---------------===//
//
// nvvm.wgmma.fence.aligned, nvvm.wgmma.mma_async, nvvm.wgmma.commit.group
// and nvvm.wgmma.wait.group become calls of the runtime
// (runtime/cpu/WarpgroupMma.cpp), which decodes the matrix descriptors and
// computes the thread's accumulators with the hardware's layouts. The
// accumulator struct goes through a private f32 buffer, allocated once at
// the function's entry.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <type_traits>

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// wgmma's ordering ops (fence, commit, wait): a call of the runtime's
/// `fn` with the op's site and, for the wait, its group count.
template <typename OpT> struct WgmmaOrderingLowering : EmulationOpPattern<OpT> {
  WgmmaOrderingLowering(EmulationModule &emu, StringRef fn)
      : EmulationOpPattern<OpT>(emu), fn(fn) {}
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    SmallVector<Value> args = {this->emu.function().site(rewriter, op)};
    if constexpr (std::is_same_v<OpT, NVVM::WgmmaWaitGroupSyncOp>)
      args.push_back(
          emuI32Const(rewriter, op.getLoc(), int32_t(op.getGroup())));
    this->emu.call(rewriter, op.getLoc(), fn, {}, args);
    rewriter.eraseOp(op);
    return success();
  }
  StringRef fn;
};

/// setmaxnreg: a call that checks the warpgroup executes it as PTX asks.
struct SetMaxRegisterLowering : EmulationOpPattern<NVVM::SetMaxRegisterOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::SetMaxRegisterOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    bool increase = op.getAction() == NVVM::SetMaxRegisterAction::increase;
    emu.call(rewriter, l, EXT_EMU_SETMAXNREG, {},
             {emu.function().site(rewriter, op),
              emuI32Const(rewriter, l, int32_t(op.getRegCount())),
              emuI32Const(rewriter, l, increase ? 1 : 0)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct WgmmaMmaAsyncLowering : EmulationOpPattern<NVVM::WgmmaMmaAsyncOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::WgmmaMmaAsyncOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    NVVM::MMAShapeAttr shape = op.getShape();
    auto structType = cast<LLVM::LLVMStructType>(op.getInouts().getType());
    NVVM::WGMMATypes a = op.getTypeA(), b = op.getTypeB(), d = op.getTypeD();
    std::optional<WarpgroupMmaKind> kind;
    if (d == NVVM::WGMMATypes::f32 && a == b) {
      if (a == NVVM::WGMMATypes::f16 && shape.getK() == 16)
        kind = EXT_EMU_WGMMA_F16_F32;
      else if (a == NVVM::WGMMATypes::bf16 && shape.getK() == 16)
        kind = EXT_EMU_WGMMA_BF16_F32;
      else if (a == NVVM::WGMMATypes::tf32 && shape.getK() == 8)
        kind = EXT_EMU_WGMMA_TF32_F32;
    }
    int64_t n = shape.getN();
    bool f32Registers =
        int64_t(structType.getBody().size()) == n / 2 &&
        llvm::all_of(structType.getBody(), [](Type t) { return t.isF32(); });
    if (!kind || shape.getM() != 64 || !f32Registers || op.getSatfinite())
      return op.emitOpError("of shape m")
             << shape.getM() << "n" << n << "k" << shape.getK() << " with "
             << stringifyWGMMATypes(a) << "/" << stringifyWGMMATypes(b)
             << " inputs and " << stringifyWGMMATypes(d)
             << " accumulators is not supported by the CPU emulation (f16 "
                "and bf16 k16, tf32 k8, f32 accumulators)";

    int32_t flags = 0;
    if (op.getLayoutA() == NVVM::MMALayout::col)
      flags |= EXT_EMU_WGMMA_TRANS_A; // M-major A
    if (op.getLayoutB() == NVVM::MMALayout::row)
      flags |= EXT_EMU_WGMMA_TRANS_B; // N-major B
    if (op.getScaleD() == NVVM::WGMMAScaleOut::one)
      flags |= EXT_EMU_WGMMA_ACCUMULATE;
    if (op.getScaleA() == NVVM::WGMMAScaleIn::neg)
      flags |= EXT_EMU_WGMMA_NEGATE_A;
    if (op.getScaleB() == NVVM::WGMMAScaleIn::neg)
      flags |= EXT_EMU_WGMMA_NEGATE_B;

    // The accumulators in a private buffer, allocated at the entry.
    EmulationFunction &fn = emu.function();
    Value buffer;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&fn.getFunc().getBody().front());
      buffer = memref::AllocaOp::create(
          rewriter, l, MemRefType::get({n / 2}, rewriter.getF32Type()),
          ValueRange{}, rewriter.getI64IntegerAttr(16));
    }
    rewriter.setInsertionPoint(op);
    for (int64_t i = 0; i < n / 2; ++i) {
      Value x = LLVM::ExtractValueOp::create(rewriter, l, op.getInouts(), i);
      memref::StoreOp::create(rewriter, l, x, buffer,
                              emuIndexConst(rewriter, l, i));
    }
    Value address = arith::IndexCastOp::create(
        rewriter, l, rewriter.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, l, buffer));
    emu.call(rewriter, l, EXT_EMU_WGMMA, {},
             {fn.site(rewriter, op), op.getDescriptorA(), op.getDescriptorB(),
              emuI32Const(rewriter, l, *kind),
              emuI32Const(rewriter, l, int32_t(n)),
              emuI32Const(rewriter, l, flags), address});
    Value result = LLVM::PoisonOp::create(rewriter, l, structType);
    for (int64_t i = 0; i < n / 2; ++i) {
      Value x = memref::LoadOp::create(rewriter, l, buffer,
                                       emuIndexConst(rewriter, l, i));
      result = LLVM::InsertValueOp::create(rewriter, l, result, x, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void ext::populateNVVMWarpgroupMmaToEmulationPatterns(
    RewritePatternSet &patterns, EmulationModule &emu) {
  patterns.add<WgmmaOrderingLowering<NVVM::WgmmaFenceAlignedOp>>(
      emu, EXT_EMU_WGMMA_FENCE);
  patterns.add<WgmmaOrderingLowering<NVVM::WgmmaGroupSyncAlignedOp>>(
      emu, EXT_EMU_WGMMA_COMMIT);
  patterns.add<WgmmaOrderingLowering<NVVM::WgmmaWaitGroupSyncOp>>(
      emu, EXT_EMU_WGMMA_WAIT);
  patterns.add<WgmmaMmaAsyncLowering, SetMaxRegisterLowering>(emu);
}
