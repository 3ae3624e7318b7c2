//===- PrintfToEmulation.cpp - gpu.printf on the CPU ----------------------===//
//
// A thread's line goes to the runtime, which prints a block's lines when the
// block finishes, each warp's in lane order as NVIDIA hardware does, whatever
// order the scheduler ran the fibers in. A kernel's failed cf.assert goes to
// the runtime too, which fails the launch with its message and the thread.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ext;

namespace {

struct PrintfLowering : EmulationOpPattern<gpu::PrintfOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::PrintfOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    // C's default argument promotions, as varargs need them.
    SmallVector<Value> args = {
        emu.stringPtr(b, l, "__ext_emu_printf_format", op.getFormat())};
    for (Value arg : op.getArgs()) {
      Type type = arg.getType();
      if (type.isIndex()) {
        arg = arith::IndexCastOp::create(b, l, b.getI64Type(), arg);
      } else if (auto intType = dyn_cast<IntegerType>(type)) {
        if (intType.getWidth() == 1)
          arg = arith::ExtUIOp::create(b, l, b.getI32Type(), arg);
        else if (intType.getWidth() < 32)
          arg = arith::ExtSIOp::create(b, l, b.getI32Type(), arg);
        else if (intType.getWidth() > 64)
          return op.emitOpError("argument of type ")
                 << type << " cannot be printed by the CPU emulation";
      } else if (auto floatType = dyn_cast<FloatType>(type)) {
        if (floatType.getWidth() < 64)
          arg = arith::ExtFOp::create(b, l, b.getF64Type(), arg);
        else if (floatType.getWidth() > 64)
          return op.emitOpError("argument of type ")
                 << type << " cannot be printed by the CPU emulation";
      }
      args.push_back(arg);
    }
    SymbolTable &symbols = emu.getSymbols();
    constexpr StringLiteral name = "__ext_emu_printf";
    auto printf = symbols.lookup<LLVM::LLVMFuncOp>(name);
    if (!printf) {
      OpBuilder mb = OpBuilder::atBlockBegin(emu.getModule().getBody());
      printf = LLVM::LLVMFuncOp::create(
          mb, l, name,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(mb.getContext()),
                                      {emu.ptrType()},
                                      /*isVarArg=*/true));
      symbols.insert(printf);
    }
    LLVM::CallOp::create(b, l, printf, args);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertLowering : EmulationOpPattern<cf::AssertOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(cf::AssertOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    Value failed = arith::XOrIOp::create(
        b, l, op.getArg(), arith::ConstantIntOp::create(b, l, 1, 1));
    Value site = emu.function().site(b, op);
    scf::IfOp::create(b, l, failed, [&](OpBuilder &tb, Location tl) {
      emu.call(tb, tl, "__ext_emu_assert_fail", {},
               {emu.stringPtr(tb, tl, "__ext_emu_assert_message", op.getMsg()),
                site});
      scf::YieldOp::create(tb, tl);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void ext::populateGPUPrintfToEmulationPatterns(RewritePatternSet &patterns,
                                               EmulationModule &emu) {
  patterns.add<PrintfLowering, AssertLowering>(emu);
}
