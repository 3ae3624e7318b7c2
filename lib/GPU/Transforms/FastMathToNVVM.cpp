//===- FastMathToNVVM.cpp - afn f32 math to approximate PTX ---------------===//
//
// convert-gpu-to-nvvm calls libdevice for math.exp2 (whose ex2.approx.f32 is
// four SASS instructions without .ftz) and emits div.rn.f32 (a slow path
// call) for every division. The `afn` ops become the approximate
// instructions instead, with the flush-to-zero forms ptxas issues as one
// MUFU each.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/FastMath.h"
#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUFASTMATHTONVVM
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// The SM number of the module's NVVM target (90 for sm_90a), 0 if none.
unsigned nvvmSmVersion(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets)
    return 0;
  for (Attribute t : targets)
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t)) {
      StringRef digits = nvvm.getChip();
      unsigned sm = 0;
      if (digits.consume_front("sm_"))
        digits.take_while(llvm::isDigit).getAsInteger(10, sm);
      return sm;
    }
  return 0;
}

Value callF32Intrinsic(OpBuilder &b, Location loc, StringRef name, Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}

/// The op's approximate replacement, or null to leave it.
Value nvvmApproximation(Operation *op, unsigned sm) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto exp2 = dyn_cast<math::Exp2Op>(op))
    return callF32Intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f32",
                         exp2.getOperand());
  if (auto rsqrt = dyn_cast<math::RsqrtOp>(op))
    return callF32Intrinsic(b, loc, "llvm.nvvm.rsqrt.approx.ftz.f",
                         rsqrt.getOperand());
  if (auto div = dyn_cast<arith::DivFOp>(op)) {
    Value rcp = NVVM::RcpApproxFtzF32Op::create(b, loc, b.getF32Type(),
                                                div.getRhs());
    if (matchPattern(div.getLhs(), m_OneFloat()))
      return rcp;
    return arith::MulFOp::create(b, loc, div.getLhs(), rcp,
                                 arith::FastMathFlags::contract);
  }
  // tanh.approx.f32 exists from sm_75; LLVM has no intrinsic for it.
  if (auto tanh = dyn_cast<math::TanhOp>(op); tanh && sm >= 75)
    return LLVM::InlineAsmOp::create(
               b, loc, b.getF32Type(), ValueRange{tanh.getOperand()},
               "tanh.approx.f32 $0, $1;", "=f,f",
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  return {};
}

struct ExtGPUFastMathToNVVMPass
    : ext::impl::ExtGPUFastMathToNVVMBase<ExtGPUFastMathToNVVMPass> {
  void runOnOperation() override {
    unsigned sm = nvvmSmVersion(getOperation());
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (ext::isApproximate(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (Value fast = nvvmApproximation(op, sm)) {
        op->getResult(0).replaceAllUsesWith(fast);
        op->erase();
      }
  }
};

} // namespace
