//===- MatrixInstructionsTest.cpp - the matrix instruction table ----------===//

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Model/MatrixInstructions.h"

#include "gtest/gtest.h"

using namespace ext;

// `#ext.mma<NAME>`'s cases and the table's rows are the same names: adding
// an instruction to one and not the other fails here.
TEST(MatrixInstructions, MmaShapeCasesAreTheTableRows) {
  unsigned cases = 0;
  for (uint32_t v = 0; v <= getMaxEnumValForMmaShape(); ++v) {
    std::optional<MmaShape> shape = symbolizeMmaShape(v);
    if (!shape || *shape == MmaShape::automatic)
      continue;
    ++cases;
    EXPECT_NE(lookupMatrixInstruction(stringifyMmaShape(*shape)), nullptr)
        << stringifyMmaShape(*shape).str() << " has no row";
  }
  EXPECT_EQ(cases, matrixInstructions().size());
  for (const MatrixInstruction &row : matrixInstructions())
    EXPECT_TRUE(symbolizeMmaShape(row.name).has_value())
        << row.name.str() << " is no MmaShape case";
}

TEST(MatrixInstructions, Facts) {
  const MatrixInstruction *mma = lookupMatrixInstruction("m16n8k16");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->lanes, 32u);
  EXPECT_TRUE(mma->takes("bf16"));
  EXPECT_FALSE(mma->takes("f32"));
  EXPECT_FALSE(mma->takes(""));
  EXPECT_TRUE(mma->existsOn(*lookupChipInfo("sm_80")));
  EXPECT_FALSE(mma->existsOn(*lookupChipInfo("sm_75")));
  EXPECT_EQ(mma->peakFractionOn(*lookupChipInfo("sm_80")), 1.0);
  EXPECT_EQ(mma->peakFractionOn(*lookupChipInfo("sm_90a")), 0.5);
  EXPECT_TRUE(lookupMatrixInstruction("m16n8k8")->roundsInputs);
  const MatrixInstruction *mfma = lookupMatrixInstruction("mfma_32x32x8");
  EXPECT_EQ(mfma->lanes, 64u);
  EXPECT_TRUE(mfma->existsOn(*lookupChipInfo("gfx942")));
  EXPECT_FALSE(mfma->existsOn(*lookupChipInfo("gfx1100")));
  const MatrixInstruction *wgmma = lookupMatrixInstruction("wgmma_k16");
  EXPECT_EQ(wgmma->warps * wgmma->m, 64);
  EXPECT_FALSE(wgmma->existsOn(*lookupChipInfo("sm_90")));
  EXPECT_EQ(lookupMatrixInstruction("auto"), nullptr);
}
