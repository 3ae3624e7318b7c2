//===- SmallFloats.cpp - f8 conversions as integer code -------------------===//
//
// arith.extf from and arith.truncf to the OCP FP8 and FP4 formats
// (f8E4M3FN, f8E5M2, f4E2M1FN) on their bits, through f32: decoding is
// exact; encoding rounds to nearest even, with arith.truncf's overflow
// (f8E5M2: inf; f8E4M3FN, which has none: NaN; f4E2M1FN, which has neither:
// its largest value, 6). Upstream's f4E2M1FN expansion drops the sign of
// values that round to the smallest subnormal; this one does not.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/ComputeToLoops/SmallFloats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace {

/// The fields of a small float format and what its top codes mean.
struct Format {
  int width;
  int mantissaBits;
  int bias;
  // E5M2: inf at S.11111.00, NaN above; E4M3FN: NaN at S.1111.111 only;
  // E2M1FN: every code finite.
  enum { IEEE, NaNOnly, FiniteOnly } special;
};

std::optional<Format> getFormat(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return Format{8, 3, 7, Format::NaNOnly};
  if (isa<Float8E5M2Type>(t))
    return Format{8, 2, 15, Format::IEEE};
  if (isa<Float4E2M1FNType>(t))
    return Format{4, 1, 1, Format::FiniteOnly};
  return std::nullopt;
}

/// Integer code on i32 values.
struct Bits {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
  }
  Value f(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value shl(Value x, int64_t n) { return arith::ShLIOp::create(b, loc, x, c(n)); }
  Value shr(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, c(n));
  }
  Value andi(Value x, int64_t m) {
    return arith::AndIOp::create(b, loc, x, c(m));
  }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, p, x, c(v));
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value asF32(Value x) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), x);
  }
  Value asI32(Value x) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  }
};

/// `value` (f32) converted to `to` (another float type), or itself.
Value fromF32(OpBuilder &b, Location loc, Value value, Type to) {
  unsigned width = to.getIntOrFloatBitWidth();
  if (to.isF32())
    return value;
  if (width > 32)
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

/// The f32 value of bits `code` (an integer of the format's width).
Value decode(Bits &i, Value code, const Format &fmt) {
  int m = fmt.mantissaBits, e = fmt.width - 1 - m;
  int signBit = fmt.width - 1;
  Value x = arith::ExtUIOp::create(i.b, i.loc, i.b.getI32Type(), code);
  Value sign = i.shl(i.shr(x, signBit), 31);
  Value exponent = i.andi(i.shr(x, m), (1 << e) - 1);
  Value mantissa = i.andi(x, (1 << m) - 1);
  // Normal: the exponent rebiased, the mantissa at f32's top bits.
  Value normal = i.ori(
      i.shl(i.add(exponent, i.c(127 - fmt.bias)), 23), i.shl(mantissa, 23 - m));
  // Subnormal (and zero): mantissa * 2^(1 - bias - m), exact in f32.
  Value scaled = arith::MulFOp::create(
      i.b, i.loc,
      arith::UIToFPOp::create(i.b, i.loc, i.b.getF32Type(), mantissa),
      i.f(std::ldexp(1.0f, 1 - fmt.bias - m)));
  Value magnitude = i.select(i.cmp(arith::CmpIPredicate::eq, exponent, 0),
                             i.asI32(scaled), normal);
  Value magnitudeBits = i.andi(x, (1 << signBit) - 1);
  if (fmt.special == Format::IEEE) {
    Value top = i.cmp(arith::CmpIPredicate::eq, exponent, (1 << e) - 1);
    Value special = i.select(i.cmp(arith::CmpIPredicate::eq, mantissa, 0),
                             i.c(0x7F800000), i.c(0x7FC00000));
    magnitude = i.select(top, special, magnitude);
  } else if (fmt.special == Format::NaNOnly) {
    Value nan =
        i.cmp(arith::CmpIPredicate::eq, magnitudeBits, (1 << signBit) - 1);
    magnitude = i.select(nan, i.c(0x7FC00000), magnitude);
  }
  return i.asF32(i.ori(sign, magnitude));
}

/// The bits (an integer of the format's width) of f32 `value`, rounded to
/// nearest even.
Value encode(Bits &i, Value value, const Format &fmt) {
  int m = fmt.mantissaBits;
  int signBit = fmt.width - 1;
  Value u = i.asI32(value);
  Value sign = i.andi(i.shr(u, 31 - signBit), 1 << signBit);
  Value a = i.andi(u, 0x7FFFFFFF);
  Value absValue = i.asF32(a);
  // Normal: round the f32 mantissa to m bits (ties to even), rebias.
  int drop = 23 - m;
  Value roundingBias =
      i.add(i.c((1 << (drop - 1)) - 1), i.andi(i.shr(a, drop), 1));
  Value normal = arith::SubIOp::create(i.b, i.loc,
                                       i.shr(i.add(a, roundingBias), drop),
                                       i.c(int64_t(127 - fmt.bias) << m));
  // Subnormal: the value in units of the smallest subnormal, rounded to an
  // integer by f32's own rounding (adding 2^23); 2^m is the smallest normal.
  Value units = arith::MulFOp::create(i.b, i.loc, absValue,
                                      i.f(std::ldexp(1.0f, fmt.bias - 1 + m)));
  Value rounded = arith::AddFOp::create(i.b, i.loc, units, i.f(8388608.0f));
  Value subnormal =
      arith::SubIOp::create(i.b, i.loc, i.asI32(rounded), i.c(0x4B000000));
  int64_t smallestNormal = int64_t(127 + 1 - fmt.bias) << 23;
  Value code = i.select(i.cmp(arith::CmpIPredicate::ult, a, smallestNormal),
                        subnormal, normal);
  // Overflow (and inf, NaN): inf for E5M2, NaN for E4M3FN, the largest
  // value for E2M1FN; NaN stays NaN (E2M1FN has none: its largest).
  int64_t top = (1 << signBit) - 1;
  int64_t limit =
      fmt.special == Format::IEEE ? top - 3 : top; // E5M2: S.11111.00
  Value big = i.cmp(arith::CmpIPredicate::ugt, a, 0x7F7FFFFF);
  Value over = arith::OrIOp::create(
      i.b, i.loc, big, i.cmp(arith::CmpIPredicate::sgt, code, limit));
  code = i.select(over, i.c(limit), code);
  code = i.select(i.cmp(arith::CmpIPredicate::ugt, a, 0x7F800000), i.c(top),
                  code);
  return arith::TruncIOp::create(
      i.b, i.loc, i.b.getIntegerType(fmt.width), i.ori(code, sign));
}

struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Format> fmt = getFormat(op.getIn().getType());
    if (!fmt)
      return rewriter.notifyMatchFailure(op, "not an f8/f4 source");
    Bits i{rewriter, op.getLoc()};
    Value bits = arith::BitcastOp::create(
        rewriter, op.getLoc(), rewriter.getIntegerType(fmt->width), op.getIn());
    Value f32 = decode(i, bits, *fmt);
    rewriter.replaceOp(op, fromF32(rewriter, op.getLoc(), f32, op.getType()));
    return success();
  }
};

struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Format> fmt = getFormat(op.getType());
    if (!fmt)
      return rewriter.notifyMatchFailure(op, "not an f8/f4 result");
    Location loc = op.getLoc();
    Value in = op.getIn();
    // f16/bf16 widen exactly; f64 rounds twice (to f32, then to f8/f4).
    if (in.getType().getIntOrFloatBitWidth() < 32)
      in = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), in);
    else if (!in.getType().isF32())
      in = arith::TruncFOp::create(rewriter, loc, rewriter.getF32Type(), in);
    Bits i{rewriter, loc};
    Value bits = encode(i, in, *fmt);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), bits);
    return success();
  }
};

} // namespace

void ext::populateExpandSmallFloatPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandExtF, ExpandTruncF>(patterns.getContext());
}
