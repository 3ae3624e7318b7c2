//===- ChipTest.cpp - the one chip model ----------------------------------===//

#include "ext/Model/Chip.h"

#include "gtest/gtest.h"

using namespace ext;

TEST(ChipInfo, NvidiaLimits) {
  std::optional<ChipInfo> sm80 = lookupChipInfo("sm_80");
  ASSERT_TRUE(sm80);
  EXPECT_TRUE(sm80->isNvidia());
  EXPECT_EQ(sm80->multiprocessors, 108u);
  EXPECT_EQ(sm80->staticSharedBytesPerBlock, 48u * 1024);
  EXPECT_EQ(sm80->maxSharedBytesPerBlock, 163u * 1024);
  EXPECT_EQ(sm80->maxThreadsPerBlock, 1024u);
  EXPECT_EQ(sm80->maxRegistersPerThread, 255u);
  EXPECT_EQ(sm80->maxPrivateBytesPerThread, 512u * 1024);
  EXPECT_EQ(sm80->multiprocessorName(), "SM");

  std::optional<ChipInfo> sm90a = lookupChipInfo("sm_90a");
  ASSERT_TRUE(sm90a);
  EXPECT_EQ(sm90a->multiprocessors, 132u);
  EXPECT_EQ(sm90a->maxSharedBytesPerBlock, 227u * 1024);
  // A chip between rows takes the generation below it.
  EXPECT_EQ(lookupChipInfo("sm_89")->maxSharedBytesPerBlock, 99u * 1024);
}

TEST(ChipInfo, AmdLimits) {
  std::optional<ChipInfo> gfx90a = lookupChipInfo("gfx90a");
  ASSERT_TRUE(gfx90a);
  EXPECT_FALSE(gfx90a->isNvidia());
  EXPECT_EQ(gfx90a->multiprocessors, 104u);
  EXPECT_EQ(gfx90a->maxSharedBytesPerBlock, 64u * 1024);
  EXPECT_EQ(gfx90a->staticSharedBytesPerBlock, 64u * 1024);
  EXPECT_EQ(gfx90a->maxRegistersPerThread, 512u);
  EXPECT_EQ(gfx90a->warpSize, 64u);
  // A wave's scratch (8 MB at most) over its lanes.
  EXPECT_EQ(gfx90a->maxPrivateBytesPerThread, 128u * 1024);
  EXPECT_EQ(lookupChipInfo("gfx1100")->maxPrivateBytesPerThread, 256u * 1024);
  EXPECT_EQ(lookupChipInfo("gfx942")->multiprocessors, 304u);
  EXPECT_EQ(lookupChipInfo("gfx942")->multiprocessorName(), "CU");
}

TEST(ChipInfo, WaveWidth) {
  // CDNA and GCN run 64-lane waves, RDNA 32-lane ones.
  EXPECT_EQ(lookupChipInfo("gfx942")->warpSize, 64u);
  EXPECT_EQ(lookupChipInfo("gfx906")->warpSize, 64u);
  EXPECT_EQ(lookupChipInfo("gfx1100")->warpSize, 32u);
  EXPECT_EQ(lookupChipInfo("gfx1030")->warpSize, 32u);
  EXPECT_EQ(lookupChipInfo("gfx1201")->warpSize, 32u);
  EXPECT_EQ(lookupChipInfo("sm_90")->warpSize, 32u);
  EXPECT_EQ(lookupChipInfo("gfx1100")->warpName(), "wave");
}

TEST(ChipInfo, Instructions) {
  std::optional<ChipInfo> sm75 = lookupChipInfo("sm_75");
  EXPECT_FALSE(sm75->hasAsyncCopy);
  EXPECT_FALSE(sm75->hasMmaSync);
  std::optional<ChipInfo> sm80 = lookupChipInfo("sm_80");
  EXPECT_TRUE(sm80->hasAsyncCopy);
  EXPECT_TRUE(sm80->hasMmaSync);
  EXPECT_FALSE(sm80->hasClusters);
  EXPECT_EQ(sm80->smVersion, 80u);
  // wgmma is sm_90a's alone.
  EXPECT_FALSE(lookupChipInfo("sm_90")->hasWarpgroupMma);
  EXPECT_TRUE(lookupChipInfo("sm_90")->hasClusters);
  EXPECT_TRUE(lookupChipInfo("sm_90a")->hasWarpgroupMma);
  EXPECT_TRUE(lookupChipInfo("sm_90a")->archSpecific);
  EXPECT_FALSE(lookupChipInfo("sm_100a")->hasWarpgroupMma);
  // MFMA on CDNA only; no NVIDIA instruction on AMD.
  EXPECT_TRUE(lookupChipInfo("gfx908")->hasMfma);
  EXPECT_TRUE(lookupChipInfo("gfx90a")->hasMfma);
  EXPECT_TRUE(lookupChipInfo("gfx942")->hasMfma);
  EXPECT_FALSE(lookupChipInfo("gfx1100")->hasMfma);
  EXPECT_FALSE(lookupChipInfo("gfx942")->hasMmaSync);
  EXPECT_FALSE(lookupChipInfo("sm_90a")->hasMfma);
}

TEST(ChipInfo, BankModel) {
  EXPECT_TRUE(lookupChipInfo("sm_80")->hasBankModel);
  EXPECT_TRUE(lookupChipInfo("gfx942")->hasBankModel);
  EXPECT_FALSE(lookupChipInfo("gfx950")->hasBankModel);
  EXPECT_FALSE(lookupChipInfo("gfx1100")->hasBankModel);
  EXPECT_EQ(lookupChipInfo("gfx942")->sharedBanks, 32u);
  EXPECT_EQ(lookupChipInfo("gfx942")->bankBytes, 4u);
}

TEST(ChipInfo, RejectsOtherNames) {
  EXPECT_FALSE(lookupChipInfo("volta"));
  EXPECT_FALSE(lookupChipInfo("sm_9x"));
  EXPECT_FALSE(lookupChipInfo("sm_"));
  EXPECT_FALSE(lookupChipInfo("gfx"));
}

TEST(ChipInfo, FormatBytes) {
  EXPECT_EQ(formatBytes(512), "512 bytes");
  EXPECT_EQ(formatBytes(61292), "61292 bytes (59.9 KB)");
}

TEST(ChipInfo, Features) {
  std::optional<ChipInfo> sm80 = lookupChipInfo("sm_80");
  EXPECT_TRUE(sm80->hasRedux && sm80->hasAsyncCopy && sm80->hasMmaSync);
  EXPECT_FALSE(sm80->hasTma || sm80->hasClusters || sm80->hasFp8);
  EXPECT_EQ(sm80->maxClusterCtas, 1u);
  EXPECT_TRUE(lookupChipInfo("sm_89")->hasFp8);
  std::optional<ChipInfo> sm90 = lookupChipInfo("sm_90");
  EXPECT_TRUE(sm90->hasTma && sm90->hasClusters);
  EXPECT_EQ(sm90->maxClusterCtas, kPortableClusterCtas);
  // wgmma is sm_90a's alone.
  EXPECT_FALSE(sm90->hasWarpgroupMma);
  EXPECT_TRUE(lookupChipInfo("sm_90a")->hasWarpgroupMma);
  EXPECT_FALSE(lookupChipInfo("sm_100a")->hasWarpgroupMma);
  EXPECT_TRUE(lookupChipInfo("sm_100a")->hasTma);
  EXPECT_FALSE(lookupChipInfo("sm_75")->hasRedux);
  EXPECT_EQ(sm90->registersPerBlock, 65536u);
  std::optional<ChipInfo> gfx942 = lookupChipInfo("gfx942");
  EXPECT_FALSE(gfx942->hasTma || gfx942->hasRedux || gfx942->hasClusters);
  EXPECT_TRUE(gfx942->hasMfma);
}

TEST(ChipThroughput, SameRowAsLimits) {
  // The product behind a chip's SM count is the one its rates are for.
  EXPECT_EQ(lookupChipThroughput(*lookupChipInfo("sm_90a")).product,
            "H200 SXM");
  EXPECT_EQ(lookupChipThroughput(*lookupChipInfo("sm_86")).product, "A40");
  EXPECT_EQ(lookupChipThroughput(*lookupChipInfo("sm_75"))
                .maxBlocksPerMultiprocessor,
            16u);
  ChipThroughput mi300x = lookupChipThroughput(*lookupChipInfo("gfx942"));
  EXPECT_EQ(mi300x.product, "MI300X");
  EXPECT_EQ(mi300x.registersPerMultiprocessor, 4u * 512 * 64);
  EXPECT_EQ(lookupChipThroughput(*lookupChipInfo("gfx1100")).product, "RDNA");
}

TEST(ChipInfo, NvptxFeatures) {
  EXPECT_EQ(lookupChipInfo("sm_90")->nvptxFeatures, "+ptx80");
  EXPECT_EQ(lookupChipInfo("sm_90a")->nvptxFeatures, "+ptx80");
  EXPECT_EQ(lookupChipInfo("sm_80")->nvptxFeatures, "");
  EXPECT_EQ(lookupChipInfo("sm_100a")->nvptxFeatures, "");
  EXPECT_EQ(lookupChipInfo("gfx942")->nvptxFeatures, "");
}
