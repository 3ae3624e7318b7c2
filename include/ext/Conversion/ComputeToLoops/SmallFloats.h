//===- SmallFloats.h - f8/f4 conversions as integer code --------*- C++ -*-===//
//
// LLVM has no f8 or f4 types: the LLVM lowering keeps their bits in i8/i4
// and cannot lower arith.extf / arith.truncf of them. These patterns expand
// those conversions into integer code on the bits (exact decoding; encoding
// rounds to nearest even as arith.truncf defines it: past the largest finite
// value, f8E5M2 gives inf, f8E4M3FN NaN and f4E2M1FN its largest value), so
// the CPU path and any GPU without a hardware conversion run them.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_CONVERSION_COMPUTETOLOOPS_SMALLFLOATS_H
#define EXT_CONVERSION_COMPUTETOLOOPS_SMALLFLOATS_H

#include "mlir/IR/PatternMatch.h"

namespace ext {

/// arith.extf from and arith.truncf to f8E4M3FN, f8E5M2 and f4E2M1FN as
/// integer code through f32.
void populateExpandSmallFloatPatterns(mlir::RewritePatternSet &patterns);

} // namespace ext

#endif // EXT_CONVERSION_COMPUTETOLOOPS_SMALLFLOATS_H
