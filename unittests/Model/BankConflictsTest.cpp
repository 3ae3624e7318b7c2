//===- BankConflictsTest.cpp - bank conflict math vs brute force ----------===//

#include "ext/Model/BankConflicts.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <vector>

using namespace ext::bank;

namespace {

/// The oracle, written independently of the library: every byte of every
/// active lane, its bank and word found by floor division, phase by phase.
Cost bruteForce(const BankModel &m, const std::vector<int64_t> &addr,
                const std::vector<bool> &active, unsigned bytes) {
  unsigned phaseLanes = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
  phaseLanes = std::min(phaseLanes, m.warpSize);
  auto fdiv = [](int64_t a, int64_t b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
  };
  Cost c;
  for (unsigned p = 0; p * phaseLanes < m.warpSize; ++p) {
    std::vector<int64_t> wordsOfBank[32];
    bool any = false;
    for (unsigned l = p * phaseLanes; l < (p + 1) * phaseLanes; ++l) {
      if (!active[l])
        continue;
      any = true;
      for (unsigned b = 0; b < bytes; ++b) {
        int64_t w = fdiv(addr[l] + b, 4);
        int64_t bank = w - fdiv(w, 32) * 32;
        std::vector<int64_t> &ws = wordsOfBank[bank];
        if (std::find(ws.begin(), ws.end(), w) == ws.end())
          ws.push_back(w);
      }
    }
    if (!any)
      continue;
    unsigned worst = 0;
    for (const std::vector<int64_t> &words : wordsOfBank)
      worst = std::max<unsigned>(worst, words.size());
    c.wavefronts += worst;
    c.phases += 1;
    c.degree = std::max(c.degree, worst);
  }
  return c;
}

Cost bruteForceAffine(const BankModel &m, const AffineAccess &a) {
  // Every base the pattern allows: 128 steps reach every residue modulo
  // the 128-byte bank period.
  Cost worst;
  std::vector<bool> all(m.warpSize, true);
  int64_t steps = a.baseStep == 0 ? 1 : 128;
  for (int64_t k = 0; k < steps; ++k) {
    std::vector<int64_t> addr(m.warpSize);
    for (unsigned l = 0; l < m.warpSize; ++l)
      addr[l] = a.baseResidue + a.baseStep * k + a.laneStride * l;
    Cost c = bruteForce(m, addr, all, a.bytes);
    worst.wavefronts = std::max(worst.wavefronts, c.wavefronts);
    worst.phases = std::max(worst.phases, c.phases);
    worst.degree = std::max(worst.degree, c.degree);
  }
  return worst;
}

AffineAccess affine(int64_t stride, unsigned bytes, int64_t base = 0,
                    int64_t step = 0) {
  AffineAccess a;
  a.baseResidue = base;
  a.baseStep = step;
  a.laneStride = stride;
  a.bytes = bytes;
  return a;
}

TEST(BankConflicts, KnownPatterns) {
  BankModel nv = BankModel::nvidia();
  // A 32x32 f32 tile read down a column: 32-way; rows padded to 33: free.
  EXPECT_EQ(worstCaseAffine(nv, affine(128, 4)).degree, 32u);
  EXPECT_EQ(worstCaseAffine(nv, affine(132, 4)).degree, 1u);
  // Contiguous f32, f16, i8 and a broadcast: free.
  EXPECT_EQ(worstCaseAffine(nv, affine(4, 4)).degree, 1u);
  EXPECT_EQ(worstCaseAffine(nv, affine(2, 2, 0, 2)).degree, 1u);
  EXPECT_EQ(worstCaseAffine(nv, affine(1, 1, 0, 1)).degree, 1u);
  EXPECT_EQ(worstCaseAffine(nv, affine(0, 4, 0, 4)).degree, 1u);
  // An f16 column of a 32x32 tile (64-byte rows): 16-way; rows of 34: free.
  EXPECT_EQ(worstCaseAffine(nv, affine(64, 2, 0, 2)).degree, 16u);
  EXPECT_EQ(worstCaseAffine(nv, affine(68, 2, 0, 2)).degree, 1u);
  // 16-byte vectors: contiguous takes 4 wavefronts (quarter-warps), free;
  // down a column of 128-byte rows 8-way; rows padded by one word still
  // 4-way (the windows overlap), by four words free.
  Cost v = worstCaseAffine(nv, affine(16, 16, 0, 16));
  EXPECT_EQ(v.wavefronts, 4u);
  EXPECT_EQ(v.degree, 1u);
  EXPECT_EQ(worstCaseAffine(nv, affine(128, 16, 0, 16)).degree, 8u);
  EXPECT_EQ(worstCaseAffine(nv, affine(132, 16, 0, 16)).degree, 4u);
  EXPECT_EQ(worstCaseAffine(nv, affine(144, 16, 0, 16)).degree, 1u);
  // 8-byte elements: two half-warps.
  Cost d = worstCaseAffine(nv, affine(8, 8, 0, 8));
  EXPECT_EQ(d.wavefronts, 2u);
  EXPECT_EQ(d.degree, 1u);
  // AMD's 64-lane wave: 4-byte accesses in two halves.
  Cost a = worstCaseAffine(BankModel::amdCDNA(), affine(4, 4));
  EXPECT_EQ(a.wavefronts, 2u);
  EXPECT_EQ(a.degree, 1u);
  EXPECT_EQ(worstCaseAffine(BankModel::amdCDNA(), affine(128, 4)).degree, 32u);
}

TEST(BankConflicts, ChipModels) {
  auto of = [](const char *chip) {
    return BankModel::of(*ext::lookupChipInfo(chip));
  };
  EXPECT_EQ(of("sm_90")->warpSize, 32u);
  EXPECT_EQ(of("gfx942")->warpSize, 64u);
  EXPECT_EQ(of("gfx942")->banks, 32u);
  EXPECT_FALSE(of("gfx950"));
  EXPECT_FALSE(of("gfx1100"));
}

TEST(BankConflicts, AffineMatchesBruteForce) {
  std::mt19937_64 rng(18);
  const unsigned widths[] = {1, 2, 4, 8, 16};
  for (const BankModel &m : {BankModel::nvidia(), BankModel::amdCDNA()}) {
    for (int iter = 0; iter < 1000; ++iter) {
      unsigned bytes = widths[rng() % 5];
      // The element a vector is made of: 1 byte up to the access itself.
      unsigned elem = widths[rng() % 5];
      elem = std::min(elem, bytes);
      int64_t stride = int64_t(rng() % 301) - 150;
      switch (rng() % 4) {
      case 0: stride *= bytes; break;                  // whole accesses
      case 1: stride *= elem; break;                   // whole elements
      case 2: stride = stride * 4 + int64_t(bytes) * (rng() % 2); break;
      default: break;                                  // any byte stride
      }
      int64_t base = int64_t(rng() % 1000) - 500;
      int64_t step = int64_t(rng() % 5) * int64_t(elem) * (rng() % 3);
      if (rng() % 2) // aligned bases, as element-typed memrefs give
        base -= ((base % int64_t(elem)) + elem) % elem;
      AffineAccess a = affine(stride, bytes, base, step);
      Cost got = worstCaseAffine(m, a);
      Cost want = bruteForceAffine(m, a);
      ASSERT_EQ(got.degree, want.degree)
          << "stride " << stride << " bytes " << bytes << " base " << base
          << " step " << step << " warp " << m.warpSize;
      ASSERT_EQ(got.wavefronts, want.wavefronts)
          << "stride " << stride << " bytes " << bytes << " base " << base
          << " step " << step << " warp " << m.warpSize;
    }
  }
}

TEST(BankConflicts, CountMatchesBruteForce) {
  // Arbitrary addresses (not affine) and partial warps.
  std::mt19937_64 rng(1818);
  const unsigned widths[] = {1, 2, 4, 8, 16};
  BankModel m = BankModel::nvidia();
  for (int iter = 0; iter < 3000; ++iter) {
    unsigned bytes = widths[rng() % 5];
    int64_t span = 1 + int64_t(rng() % 4096);
    std::vector<int64_t> addr(32);
    std::vector<bool> active(32);
    bool act[32];
    for (unsigned l = 0; l < 32; ++l) {
      addr[l] = (int64_t(rng() % span) / bytes) * bytes;
      active[l] = act[l] = rng() % 5 != 0;
    }
    Cost got = countWavefronts(m, addr.data(), act, bytes);
    EXPECT_EQ(got, bruteForce(m, addr, active, bytes));
  }
}

} // namespace
