//===- FastMathToEmulation.cpp - approximate math with the GPU's semantics ===//
//
// The `afn` f32 ops of a fast-math kernel (ext-gpu-fast-math) are NVIDIA's
// approximate instructions on the GPU. The emulator computes each one
// correctly rounded and applies the instruction's flush-to-zero: a subnormal
// input or result becomes a zero of its sign. The results are then within
// the instructions' documented error of what the GPU computes (ex2.approx
// 2 ulp, rcp.approx 1 ulp, rsqrt.approx 2 ulp, tanh.approx 2^-10.987
// relative), and equal to it where the flushing decides the value.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Dialect/Ext/Transforms/FastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

/// `v`, or a zero of its sign where `v` is subnormal (.ftz).
Value flushSubnormal(OpBuilder &b, Location loc, Value v) {
  Value smallest = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::numeric_limits<float>::min()));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value magnitude = math::AbsFOp::create(b, loc, v);
  Value subnormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          magnitude, smallest);
  Value signedZero = math::CopySignOp::create(b, loc, zero, v);
  return arith::SelectOp::create(b, loc, subnormal, signedZero, v);
}

/// The emulation of approximate op `op`, or null to leave it.
Value emulateApproximation(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto exp2 = dyn_cast<math::Exp2Op>(op))
    return flushSubnormal(b, loc,
                 math::Exp2Op::create(b, loc, flushSubnormal(b, loc, exp2.getOperand())));
  if (auto rsqrt = dyn_cast<math::RsqrtOp>(op))
    return flushSubnormal(
        b, loc, math::RsqrtOp::create(b, loc, flushSubnormal(b, loc, rsqrt.getOperand())));
  if (auto div = dyn_cast<arith::DivFOp>(op)) {
    // rcp.approx.ftz, then (unless the dividend is 1) a multiply.
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
    Value rcp = flushSubnormal(
        b, loc, arith::DivFOp::create(b, loc, one, flushSubnormal(b, loc, div.getRhs())));
    if (matchPattern(div.getLhs(), m_OneFloat()))
      return rcp;
    return arith::MulFOp::create(b, loc, div.getLhs(), rcp);
  }
  // tanh.approx.f32 keeps subnormals: computed correctly rounded, within its
  // bound.
  if (auto tanh = dyn_cast<math::TanhOp>(op))
    return math::TanhOp::create(b, loc, tanh.getOperand());
  return {};
}

} // namespace

void ext::lowerApproximateMathToEmulation(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isApproximate(op))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    if (Value exact = emulateApproximation(op)) {
      op->getResult(0).replaceAllUsesWith(exact);
      op->erase();
    }
}
