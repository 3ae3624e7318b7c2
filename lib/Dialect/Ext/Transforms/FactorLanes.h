//===- FactorLanes.h - a computed operand, several k at once ----*- C++ -*-===//
//
// A matrix instruction's lane holds runs of consecutive k of its operands
// (mma.sync's f16 registers: two, MFMA: K * M / 64). Where the operand is a
// factor computed from inputs (a weight dequantized from packed bytes), the
// run is built at once: loads whose tile indices agree across the run
// issued once (one byte serves two int4 codes, one scale a whole run),
// index arithmetic folded per element (k mod 2 is a constant), the rest as
// vector ops, and integer-to-half conversions of small values by the
// magic-number trick (the value ORed into the mantissa of 1024.0 (f16) or
// 128.0 (bf16), then one subtraction; exact), two int4 or int2 codes of one
// byte moved into the two halves of a 32-bit word by one shift and mask.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_FACTORLANES_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_FACTORLANES_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {

/// The factor `f` of `op`'s body at `lanes` consecutive k: lane c at
/// tile-local (x, kScale * kVar + kConst + c), x along `xAxis`, kVar in
/// [0, kVarRange) (the lane's position: what index arithmetic over k folds
/// with). Returns a vector<lanes x T> of the factor's type T.
mlir::Value buildFactorLanes(mlir::RewriterBase &rw, mlir::Location loc,
                             TileComputeOp op, const ProductFactor &f,
                             unsigned xAxis, unsigned kAxis, mlir::Value x,
                             mlir::Value kVar, int64_t kVarRange,
                             int64_t kScale, int64_t kConst, int64_t lanes);

} // namespace ext

#endif
