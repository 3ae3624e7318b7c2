//===- CombinerTest.cpp - identities of the built-in combiners ------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace ext;

namespace {

class CombinerTest : public ::testing::Test {
protected:
  CombinerTest() { ctx.loadDialect<ExtDialect>(); }
  MLIRContext ctx;
  Builder b{&ctx};
};

TEST_F(CombinerTest, FloatIdentities) {
  for (Type t : {Type(b.getF16Type()), Type(b.getF32Type()),
                 Type(b.getF64Type()), Type(b.getBF16Type())}) {
    auto get = [&](CombinerKind k) {
      return cast<FloatAttr>(getCombinerIdentity(k, t)).getValue();
    };
    EXPECT_TRUE(get(CombinerKind::sum).isZero());
    EXPECT_TRUE(get(CombinerKind::prod).isExactlyValue(1.0));
    EXPECT_TRUE(get(CombinerKind::max).isInfinity());
    EXPECT_TRUE(get(CombinerKind::max).isNegative());
    EXPECT_TRUE(get(CombinerKind::min).isInfinity());
    EXPECT_FALSE(get(CombinerKind::min).isNegative());
    EXPECT_EQ(getCombinerIdentity(CombinerKind::sum, t).getType(), t);
  }
}

TEST_F(CombinerTest, IntegerIdentitiesAreSigned) {
  Type i8 = b.getIntegerType(8);
  auto get = [&](CombinerKind k, Type t) {
    return cast<IntegerAttr>(getCombinerIdentity(k, t)).getValue();
  };
  EXPECT_EQ(get(CombinerKind::sum, i8).getSExtValue(), 0);
  EXPECT_EQ(get(CombinerKind::prod, i8).getSExtValue(), 1);
  EXPECT_EQ(get(CombinerKind::max, i8).getSExtValue(), -128);
  EXPECT_EQ(get(CombinerKind::min, i8).getSExtValue(), 127);
  Type idx = b.getIndexType();
  EXPECT_EQ(get(CombinerKind::max, idx).getSExtValue(), INT64_MIN);
  EXPECT_EQ(get(CombinerKind::min, b.getI32Type()).getSExtValue(), INT32_MAX);
}

TEST_F(CombinerTest, CustomAndNonNumericHaveNoIdentity) {
  EXPECT_FALSE(getCombinerIdentity(CombinerKind::custom, b.getF32Type()));
  Type vec = VectorType::get({4}, b.getF32Type());
  EXPECT_FALSE(getCombinerIdentity(CombinerKind::sum, vec));
  EXPECT_FALSE(isCombinableType(CombinerKind::sum, vec));
  EXPECT_TRUE(isCombinableType(CombinerKind::max, b.getI1Type()));
}

} // namespace
