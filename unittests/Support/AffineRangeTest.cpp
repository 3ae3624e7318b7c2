//===- AffineRangeTest.cpp - ranges of affine accesses over a box ---------===//

#include "ext/Support/AffineRange.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using ext::computeAffineRange;
using ext::IndexRange;

namespace {

class AffineRangeTest : public ::testing::Test {
protected:
  MLIRContext ctx;
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, &ctx); }
  AffineExpr c(int64_t v) { return getAffineConstantExpr(v, &ctx); }
};

TEST_F(AffineRangeTest, SingleDim) {
  auto r = computeAffineRange(d(1), {4, 7});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (IndexRange{0, 6}));
}

TEST_F(AffineRangeTest, ConvolutionWindow) {
  // oh * 2 + kh over oh in [0, 8), kh in [0, 3): [0, 16].
  auto r = computeAffineRange(d(0) * 2 + d(1), {8, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (IndexRange{0, 16}));
}

TEST_F(AffineRangeTest, NegativeCoefficientAndOffset) {
  // 10 - d0 + d1 over d0 in [0, 5), d1 in [0, 2): [6, 11].
  auto r = computeAffineRange(c(10) - d(0) + d(1), {5, 2});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (IndexRange{6, 11}));
}

TEST_F(AffineRangeTest, ModAndFloorDiv) {
  auto m = computeAffineRange(d(0) % 4, {16});
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (IndexRange{0, 3}));
  // Within one period the mod is exact: d0 in [0, 3) -> [0, 2].
  auto small = computeAffineRange(d(0) % 4, {3});
  ASSERT_TRUE(small);
  EXPECT_EQ(*small, (IndexRange{0, 2}));
  auto q = computeAffineRange(d(0).floorDiv(4), {16});
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, (IndexRange{0, 3}));
  auto cd = computeAffineRange(d(0).ceilDiv(4), {16});
  ASSERT_TRUE(cd);
  EXPECT_EQ(*cd, (IndexRange{0, 4}));
}

TEST_F(AffineRangeTest, RejectsSymbolsAndBadDomains) {
  EXPECT_FALSE(computeAffineRange(getAffineSymbolExpr(0, &ctx), {4}));
  EXPECT_FALSE(computeAffineRange(d(2), {4, 4}));
  EXPECT_FALSE(computeAffineRange(d(0), {0}));
}

TEST_F(AffineRangeTest, OverflowIsRejected) {
  EXPECT_FALSE(computeAffineRange(d(0) * (int64_t(1) << 62), {8}));
}

// Linear expressions are exact: compare with enumeration of the whole box.
TEST_F(AffineRangeTest, LinearMatchesEnumeration) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> coef(-5, 5), ext(1, 6);
  for (int trial = 0; trial < 300; ++trial) {
    int64_t e0 = ext(rng), e1 = ext(rng), e2 = ext(rng);
    int64_t a = coef(rng), b = coef(rng), k = coef(rng), cst = coef(rng);
    AffineExpr expr = d(0) * a + d(1) * b + d(2) * k + cst;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t x = 0; x < e0; ++x)
      for (int64_t y = 0; y < e1; ++y)
        for (int64_t z = 0; z < e2; ++z) {
          int64_t v = a * x + b * y + k * z + cst;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
    auto r = computeAffineRange(expr, {e0, e1, e2});
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, (IndexRange{lo, hi})) << "trial " << trial;
  }
}

// Non-linear expressions over-approximate soundly: every value is inside.
TEST_F(AffineRangeTest, NonLinearIsSound) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> coef(-4, 4), ext(1, 9), div(1, 5);
  for (int trial = 0; trial < 300; ++trial) {
    int64_t e0 = ext(rng), e1 = ext(rng);
    int64_t a = coef(rng), b = coef(rng), m = div(rng);
    AffineExpr inner = d(0) * a + d(1) * b;
    AffineExpr exprs[] = {inner % m, inner.floorDiv(m), inner.ceilDiv(m) + d(1)};
    for (AffineExpr expr : exprs) {
      auto r = computeAffineRange(expr, {e0, e1});
      ASSERT_TRUE(r);
      for (int64_t x = 0; x < e0; ++x)
        for (int64_t y = 0; y < e1; ++y) {
          AffineExpr v = expr.replaceDims({c(x), c(y)});
          int64_t value = cast<AffineConstantExpr>(v).getValue();
          EXPECT_LE(r->lo, value);
          EXPECT_GE(r->hi, value);
        }
    }
  }
}

} // namespace
