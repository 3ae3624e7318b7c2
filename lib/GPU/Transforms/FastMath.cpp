//===- FastMath.cpp - a scheduled kernel's f32 math in its fast forms -----===//
//
// The target-neutral half of a schedule's `fast_math`: contraction flags and
// the approximations' forms (exp through exp2, a division through one
// reciprocal), marked `afn` for the NVVM lowering and the emulator alike, so
// that both run the same arithmetic.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/FastMath.h"
#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include "llvm/Support/MathExtras.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUFASTMATH
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using arith::FastMathFlags;

namespace {

bool hasF32ElementType(Type t) { return getElementTypeOrSelf(t).isF32(); }

/// Adds `flags` to `op`'s fast-math flags.
void addFastMathFlags(Operation *op, FastMathFlags flags) {
  auto fmf = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlagsAttr given = fmf.getFastMathFlagsAttr();
  FastMathFlags old = given ? given.getValue() : FastMathFlags::none;
  op->setAttr(fmf.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(), old | flags));
}

/// exp(x) = exp2(x log2 e); where x = a - b and multiply-adds fuse,
/// exp2(fma(a, log2 e, b -log2 e)): the product of the subtrahend (a row's
/// maximum) made once where it is.
void rewriteExpThroughExp2(math::ExpOp op, bool fuse) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto contract = arith::FastMathFlagsAttr::get(
      op.getContext(), fuse ? FastMathFlags::contract : FastMathFlags::none);
  auto log2e = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(llvm::numbers::log2ef));
  Value arg;
  auto sub = op.getOperand().getDefiningOp<arith::SubFOp>();
  if (fuse && sub) {
    auto negLog2e = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-llvm::numbers::log2ef));
    Value scaled =
        arith::MulFOp::create(b, loc, sub.getRhs(), negLog2e, contract);
    arg = math::FmaOp::create(b, loc, sub.getLhs(), log2e, scaled);
  } else {
    arg = arith::MulFOp::create(b, loc, op.getOperand(), log2e, contract);
  }
  auto exp2 = math::Exp2Op::create(
      b, loc, arg,
      arith::FastMathFlagsAttr::get(op.getContext(), FastMathFlags::afn));
  op.replaceAllUsesWith(exp2.getResult());
  op.erase();
}

/// a / b = a * (1 / b): the reciprocal is `afn` (one approximate
/// instruction), and where b is loop-invariant (a row's sum) LLVM hoists it.
void rewriteDivThroughReciprocal(arith::DivFOp op) {
  auto afn = FastMathFlags::afn;
  if (matchPattern(op.getLhs(), m_OneFloat())) {
    addFastMathFlags(op, afn);
    return;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
  Value rcp = arith::DivFOp::create(
      b, loc, one, op.getRhs(),
      arith::FastMathFlagsAttr::get(op.getContext(), afn));
  Value product = arith::MulFOp::create(
      b, loc, op.getLhs(), rcp,
      arith::FastMathFlagsAttr::get(op.getContext(), FastMathFlags::contract));
  op.replaceAllUsesWith(product);
  op.erase();
}

void makeLaunchFast(gpu::LaunchOp launch, bool contract) {
  SmallVector<Operation *> ops;
  launch.getBody().walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    if (isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op) &&
        hasF32ElementType(op->getResult(0).getType())) {
      if (contract)
        addFastMathFlags(op, FastMathFlags::contract);
      continue;
    }
    if (op->getNumResults() != 1 || !op->getResult(0).getType().isF32())
      continue;
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](math::ExpOp exp) { rewriteExpThroughExp2(exp, contract); })
        .Case([](arith::DivFOp div) { rewriteDivThroughReciprocal(div); })
        .Case<math::Exp2Op, math::RsqrtOp, math::TanhOp>(
            [](Operation *o) { addFastMathFlags(o, FastMathFlags::afn); });
  }
}

struct ExtGPUFastMathPass
    : ext::impl::ExtGPUFastMathBase<ExtGPUFastMathPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::LaunchOp launch) {
      bool contract = !launch->removeAttr(ext::kNoContractAttrName);
      if (!launch->removeAttr(ext::kFastMathAttrName))
        return;
      makeLaunchFast(launch, contract);
    });
  }
};

} // namespace
