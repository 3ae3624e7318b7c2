//===- FastMath.h - a kernel's fast-math mode ---------------------*- C++ -*-===//
//
// A schedule's `fast_math` (on by default) reaches its launches as the unit
// attribute kFastMathAttrName: ext-apply-schedule marks the ext.kernel of a
// schedule with `fast_math = false` kPreciseMathAttrName, ext-kernel-to-gpu
// marks each gpu.launch made from an ext.kernel without it, and
// ext-gpu-fast-math
// rewrites the launch's f32 math into the forms every lowering shares:
// multiplies, adds and subtracts marked `contract`; exp(x) as exp2(x log2 e);
// exp2, divisions (written as a reciprocal times the dividend), rsqrt and
// tanh marked `afn`. Those `afn` ops are what the NVVM lowering
// (ext-gpu-fast-math-to-nvvm) turns into approximate instructions and the
// emulator computes with their semantics (flushed subnormals): both test
// isApproximate.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_FASTMATH_H
#define EXT_DIALECT_EXT_TRANSFORMS_FASTMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringRef.h"

namespace ext {

inline constexpr llvm::StringLiteral kFastMathAttrName = "ext.fast_math";
inline constexpr llvm::StringLiteral kPreciseMathAttrName = "ext.precise_math";
/// On an ext.kernel and its launches: fast math without FMA contraction.
inline constexpr llvm::StringLiteral kNoContractAttrName = "ext.no_contract";

/// Whether `op` is a scalar f32 op marked `afn`: one ext-gpu-fast-math made
/// approximate (or a user wrote so).
inline bool isApproximate(mlir::Operation *op) {
  auto fmf = llvm::dyn_cast<mlir::arith::ArithFastMathInterface>(op);
  if (!fmf || op->getNumResults() != 1 || !op->getResult(0).getType().isF32())
    return false;
  // Absent in IR that was not built through the ops' builders.
  mlir::arith::FastMathFlagsAttr flags = fmf.getFastMathFlagsAttr();
  return flags && mlir::arith::bitEnumContainsAll(
                      flags.getValue(), mlir::arith::FastMathFlags::afn);
}

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_FASTMATH_H
