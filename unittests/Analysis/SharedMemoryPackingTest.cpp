//===- SharedMemoryPackingTest.cpp - packing shared-memory buffers --------===//

#include "ext/Analysis/SharedMemoryPacking.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using namespace ext::smem;

namespace {

PackingProblem
makeProblem(std::vector<PackingBuffer> buffers,
            const std::vector<std::pair<size_t, size_t>> &edges) {
  PackingProblem p;
  size_t n = buffers.size();
  p.buffers = std::move(buffers);
  p.interferes.assign(n, std::vector<bool>(n, false));
  for (auto [a, b] : edges)
    p.interferes[a][b] = p.interferes[b][a] = true;
  return p;
}

/// Every buffer interferes with every other.
PackingProblem makeClique(std::vector<PackingBuffer> buffers) {
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t a = 0; a < buffers.size(); ++a)
    for (size_t b = a + 1; b < buffers.size(); ++b)
      edges.emplace_back(a, b);
  return makeProblem(std::move(buffers), edges);
}

uint64_t alignedUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/// What a naive allocator does: buffers in program (index) order, each at the
/// lowest aligned offset free of the interfering buffers placed before it.
std::vector<uint64_t> programOrderFirstFit(const PackingProblem &p) {
  size_t n = p.buffers.size();
  std::vector<uint64_t> offsets(n, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j)
        if (p.interfere(i, j) && at < offsets[j] + p.buffers[j].size &&
            offsets[j] < at + p.buffers[i].size) {
          at =
              alignedUp(offsets[j] + p.buffers[j].size, p.buffers[i].alignment);
          moved = true;
        }
    }
    offsets[i] = at;
  }
  return offsets;
}

/// Independent oracle: tries every aligned offset of every buffer, in index
/// order, keeping partial assignments free of interfering overlap and below
/// the best footprint found. Laying everything end to end in index order
/// costs at most sum(size + alignment), so the optimum is found below that.
uint64_t bruteForceOptimum(const PackingProblem &p) {
  size_t n = p.buffers.size();
  uint64_t best = 1;
  for (const PackingBuffer &b : p.buffers)
    best += b.size + b.alignment;
  std::vector<uint64_t> offsets(n, 0);
  auto recurse = [&](auto &self, size_t i, uint64_t end) -> void {
    if (i == n) {
      best = std::min(best, end);
      return;
    }
    const PackingBuffer &b = p.buffers[i];
    for (uint64_t at = 0; at + b.size < best; at += b.alignment) {
      bool clash = false;
      for (size_t j = 0; j < i && !clash; ++j)
        clash = p.interfere(i, j) && at < offsets[j] + p.buffers[j].size &&
                offsets[j] < at + b.size;
      if (clash)
        continue;
      offsets[i] = at;
      self(self, i + 1, std::max(end, at + b.size));
    }
  };
  recurse(recurse, 0, 0);
  return best;
}

/// Random problem: n buffers, each either an array (size = elements times an
/// element size that is also its alignment) or, with `oddSizes`, a size of
/// 1..64 bytes with an unrelated alignment; each pair interferes with
/// probability `density`.
PackingProblem randomProblem(std::mt19937_64 &rng, size_t n, double density,
                             bool oddSizes, uint64_t maxElems = 64) {
  std::uniform_int_distribution<uint64_t> elems(1, maxElems);
  std::uniform_int_distribution<unsigned> logAlign(0, 4);
  std::bernoulli_distribution coin(density);
  std::vector<PackingBuffer> buffers;
  for (size_t i = 0; i < n; ++i) {
    uint64_t align = uint64_t(1) << logAlign(rng);
    uint64_t size = oddSizes ? elems(rng) : elems(rng) * align;
    buffers.push_back({size, align});
  }
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (coin(rng))
        edges.emplace_back(a, b);
  return makeProblem(std::move(buffers), edges);
}

/// Properties every packBuffers result must have.
void checkResult(const PackingProblem &p, const PackingResult &r) {
  std::string why;
  ASSERT_TRUE(isValidPacking(p, r.offsets, &why)) << why;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    EXPECT_EQ(r.offsets[i] % p.buffers[i].alignment, 0u);
  EXPECT_EQ(r.total, footprint(p, r.offsets));
  EXPECT_EQ(r.lowerBound, maxWeightCliqueBound(p));
  EXPECT_EQ(r.naiveSum, naiveSum(p));
  EXPECT_EQ(r.bestFitTotal, footprint(p, bestFitDecreasing(p)));
  EXPECT_GE(r.total, r.lowerBound);
  EXPECT_LE(r.total, r.naiveSum);
  if (r.method != PackingMethod::BestFitDecreasing) {
    EXPECT_LE(r.total, r.bestFitTotal);
  }
  std::string bfdWhy;
  EXPECT_TRUE(isValidPacking(p, bestFitDecreasing(p), &bfdWhy)) << bfdWhy;
}

//===----------------------------------------------------------------------===//
// Hand-made cases
//===----------------------------------------------------------------------===//

TEST(SharedMemoryPackingTest, Empty) {
  PackingProblem p;
  PackingResult r = packBuffers(p);
  EXPECT_TRUE(r.offsets.empty());
  EXPECT_EQ(r.total, 0u);
  EXPECT_EQ(r.lowerBound, 0u);
  EXPECT_EQ(r.method, PackingMethod::Trivial);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, SingleAndDisjointBuffersShareOffsetZero) {
  PackingProblem one = makeProblem({{40, 8}}, {});
  PackingResult r = packBuffers(one);
  EXPECT_EQ(r.offsets, std::vector<uint64_t>{0});
  EXPECT_EQ(r.total, 40u);
  EXPECT_EQ(r.method, PackingMethod::Trivial);

  PackingProblem none = makeProblem({{40, 8}, {12, 4}, {100, 16}}, {});
  r = packBuffers(none);
  checkResult(none, r);
  EXPECT_EQ(r.offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(r.total, 100u);
  EXPECT_EQ(r.naiveSum, 164u); // 40 + 12 + alignUp(100, 16)
  EXPECT_EQ(r.method, PackingMethod::Trivial);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, ChainLetsTheEndsShare) {
  // A-B and B-C live together, A and C never: A and C can share bytes.
  PackingProblem p = makeProblem({{10, 1}, {20, 1}, {30, 1}}, {{0, 1}, {1, 2}});
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 50u); // max(A + B, B + C)
  EXPECT_EQ(r.lowerBound, 50u);
  EXPECT_EQ(r.naiveSum, 60u);
  EXPECT_EQ(r.method, PackingMethod::Exact);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, CliqueNeedsTheSum) {
  PackingProblem p = makeClique({{8, 8}, {16, 8}, {24, 8}, {32, 8}});
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 80u);
  EXPECT_EQ(r.lowerBound, 80u);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, LargestFirstAvoidsFragmentation) {
  // In program order the 1-byte A takes [0, 1) and pushes B to [1, 5); C
  // (live with B only) cannot use the 1-byte hole and lands at 5. Largest
  // first puts B at 0, C above it, and A into C's space.
  PackingProblem p = makeProblem({{1, 1}, {4, 1}, {4, 1}}, {{0, 1}, {1, 2}});
  EXPECT_EQ(footprint(p, programOrderFirstFit(p)), 9u);
  EXPECT_EQ(footprint(p, bestFitDecreasing(p)), 8u);
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 8u);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, BestFitPicksTheSmallestGap) {
  // A..E all live together and stack up as A [0, 16), B [16, 28),
  // C [28, 38), D [38, 44), E [44, 49). W is live with A, C and E only, so it
  // sees the gaps [16, 28) and [38, 44): best fit takes the smaller one.
  PackingProblem p = makeProblem(
      {{16, 1}, {12, 1}, {10, 1}, {6, 1}, {5, 1}, {4, 1}}, {{0, 1},
                                                            {0, 2},
                                                            {0, 3},
                                                            {0, 4},
                                                            {1, 2},
                                                            {1, 3},
                                                            {1, 4},
                                                            {2, 3},
                                                            {2, 4},
                                                            {3, 4},
                                                            {5, 0},
                                                            {5, 2},
                                                            {5, 4}});
  std::vector<uint64_t> offsets = bestFitDecreasing(p);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 16, 28, 38, 44, 38}));
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 49u);
}

TEST(SharedMemoryPackingTest, MixedAlignments) {
  // A 3-byte buffer, then an 8-aligned one: program order pads 3 -> 8.
  PackingProblem p = makeProblem({{3, 1}, {8, 8}}, {{0, 1}});
  EXPECT_EQ(footprint(p, programOrderFirstFit(p)), 16u);
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 11u);
  EXPECT_EQ(r.offsets, (std::vector<uint64_t>{8, 0}));

  // Here size-first is the wrong order: 9 bytes first push the 8-aligned
  // buffer to 16; the exact search puts it first.
  PackingProblem q = makeProblem({{9, 1}, {8, 8}}, {{0, 1}});
  PackingResult s = packBuffers(q);
  checkResult(q, s);
  EXPECT_EQ(s.bestFitTotal, 24u);
  EXPECT_EQ(s.total, 17u);
  EXPECT_TRUE(s.provedOptimal);
}

TEST(SharedMemoryPackingTest, PaddingInsideACliqueIsProved) {
  // Three 1-byte buffers aligned to 16, all live together: 0, 16, 32. The
  // clique bound says 3; the chain bound of the search knows about padding.
  PackingProblem p = makeClique({{1, 16}, {1, 16}, {1, 16}, {5, 1}});
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.lowerBound, 8u);
  EXPECT_EQ(r.total, 33u); // the 5-byte buffer fits in a padding hole
  EXPECT_EQ(r.total, bruteForceOptimum(p));
  EXPECT_TRUE(r.provedOptimal);
  EXPECT_EQ(r.nodesExplored, 0u); // a seed meets the chain bound
}

TEST(SharedMemoryPackingTest, OddCycleBeatsTheCliqueBound) {
  // A 5-cycle of unit buffers: every clique is an edge (2 bytes), but the
  // cycle needs 3 colours, i.e. 3 bytes.
  std::vector<std::pair<size_t, size_t>> cycle{
      {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}};
  PackingProblem unit =
      makeProblem({{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, cycle);
  PackingResult r = packBuffers(unit);
  checkResult(unit, r);
  EXPECT_EQ(r.lowerBound, 2u);
  EXPECT_EQ(r.total, 3u);
  EXPECT_EQ(r.total, bruteForceOptimum(unit));
  EXPECT_TRUE(r.provedOptimal);

  // Weighted: heaviest edge 5 + 6 = 11, but the optimum is higher.
  PackingProblem weighted =
      makeProblem({{4, 1}, {5, 1}, {6, 1}, {4, 1}, {5, 1}}, cycle);
  r = packBuffers(weighted);
  checkResult(weighted, r);
  uint64_t optimum = bruteForceOptimum(weighted);
  EXPECT_EQ(r.lowerBound, 11u);
  EXPECT_GT(optimum, r.lowerBound);
  EXPECT_EQ(r.total, optimum);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, IndependentComponents) {
  // {0, 1} and {2, 3, 4} never interfere with each other.
  PackingProblem p = makeProblem({{16, 4}, {8, 4}, {4, 1}, {4, 1}, {4, 1}},
                                 {{0, 1}, {2, 3}, {3, 4}, {2, 4}});
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 24u);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, AsymmetricMatrixStillInterferes) {
  PackingProblem p;
  p.buffers = {{8, 1}, {8, 1}};
  p.interferes = {{false, true}, {false, false}};
  EXPECT_TRUE(p.interfere(0, 1));
  EXPECT_TRUE(p.interfere(1, 0));
  EXPECT_FALSE(p.interfere(0, 0));
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 16u);
}

TEST(SharedMemoryPackingTest, ZeroSizeBuffersTakeNoSpace) {
  // Not expected from the pass, but harmless: no bytes, no conflicts.
  PackingProblem p = makeProblem({{0, 16}, {8, 4}, {8, 4}, {0, 1}},
                                 {{0, 1}, {0, 2}, {1, 2}, {3, 1}});
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.total, 16u);
  EXPECT_EQ(r.offsets[0], 0u);
  EXPECT_EQ(r.offsets[3], 0u);
}

TEST(SharedMemoryPackingTest, CliqueBoundMatchesEnumeration) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> density(0.0, 1.0);
  for (int iter = 0; iter < 200; ++iter) {
    size_t n = 1 + iter % 12;
    PackingProblem p = randomProblem(rng, n, density(rng), iter % 2);
    uint64_t best = 0;
    for (uint32_t set = 1; set < (1u << n); ++set) {
      uint64_t weight = 0;
      bool clique = true;
      for (size_t a = 0; a < n && clique; ++a) {
        if (!(set >> a & 1))
          continue;
        weight += p.buffers[a].size;
        for (size_t b = a + 1; b < n && clique; ++b)
          clique = !(set >> b & 1) || p.interfere(a, b);
      }
      if (clique)
        best = std::max(best, weight);
    }
    ASSERT_EQ(maxWeightCliqueBound(p), best) << "iteration " << iter;
  }
}

TEST(SharedMemoryPackingTest, ValidityChecker) {
  PackingProblem p = makeProblem({{8, 4}, {8, 4}, {8, 4}}, {{0, 1}});
  std::string why;
  EXPECT_TRUE(isValidPacking(p, {0, 8, 0}, &why)) << why;
  EXPECT_FALSE(isValidPacking(p, {0, 4, 0}, &why)); // 0 and 1 overlap
  EXPECT_NE(why.find("overlap"), std::string::npos);
  EXPECT_FALSE(isValidPacking(p, {0, 10, 0}, &why)); // misaligned
  EXPECT_NE(why.find("aligned"), std::string::npos);
  EXPECT_FALSE(isValidPacking(p, {0, 8}, &why)); // too few offsets
}

TEST(SharedMemoryPackingTest, IdenticalBuffersAreFast) {
  // 16 interchangeable buffers: symmetry breaking keeps this instant.
  std::vector<PackingBuffer> same(16, PackingBuffer{4, 4});
  PackingProblem clique = makeClique(same);
  PackingResult r = packBuffers(clique);
  checkResult(clique, r);
  EXPECT_EQ(r.total, 64u);
  EXPECT_TRUE(r.provedOptimal);

  // An odd ring of 15 identical buffers plus one in the middle touching all:
  // the ring needs 3 slots, the hub a 4th.
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t i = 0; i < 15; ++i) {
    edges.emplace_back(i, (i + 1) % 15);
    edges.emplace_back(i, 15);
  }
  PackingProblem wheel = makeProblem(same, edges);
  r = packBuffers(wheel);
  checkResult(wheel, r);
  EXPECT_EQ(r.lowerBound, 12u);
  EXPECT_EQ(r.total, 16u);
  EXPECT_TRUE(r.provedOptimal);
}

TEST(SharedMemoryPackingTest, BudgetExhaustionKeepsTheIncumbent) {
  // The 5-cycle's optimum (3) is above its clique bound (2), so only a
  // finished search proves it; with no budget the seed is returned.
  PackingProblem p = makeProblem({{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
                                 {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
  PackingOptions opts;
  opts.nodeBudget = 0;
  PackingResult r = packBuffers(p, opts);
  checkResult(p, r);
  EXPECT_EQ(r.method, PackingMethod::Exact);
  EXPECT_FALSE(r.provedOptimal);
  EXPECT_EQ(r.nodesExplored, 0u);
}

TEST(SharedMemoryPackingTest, ExactLimitSelectsTheMethod) {
  std::mt19937_64 rng(7);
  PackingProblem p = randomProblem(rng, 10, 0.5, /*oddSizes=*/false);
  PackingOptions opts;
  opts.exactLimit = 4;
  PackingResult r = packBuffers(p, opts);
  checkResult(p, r);
  EXPECT_EQ(r.method, PackingMethod::BestFitDecreasing);
  EXPECT_EQ(r.nodesExplored, 0u);
  opts.exactLimit = 10;
  PackingResult s = packBuffers(p, opts);
  checkResult(p, s);
  EXPECT_EQ(s.method, PackingMethod::Exact);
  EXPECT_LE(s.total, r.total);
}

//===----------------------------------------------------------------------===//
// Random problems
//===----------------------------------------------------------------------===//

TEST(SharedMemoryPackingTest, RandomSmallProblemsMatchBruteForce) {
  std::mt19937_64 rng(1234);
  std::uniform_int_distribution<size_t> count(1, 5);
  std::uniform_real_distribution<double> density(0.0, 1.0);
  for (int iter = 0; iter < 1500; ++iter) {
    PackingProblem p = randomProblem(rng, count(rng), density(rng),
                                     /*oddSizes=*/iter % 2 == 1,
                                     /*maxElems=*/iter % 2 ? 12 : 3);
    PackingResult r = packBuffers(p);
    checkResult(p, r);
    ASSERT_TRUE(r.provedOptimal) << "iteration " << iter;
    ASSERT_EQ(r.total, bruteForceOptimum(p)) << "iteration " << iter;
  }
}

TEST(SharedMemoryPackingTest, RandomProblemsUpToSixteenAreSolvedExactly) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> density(0.0, 1.0);
  auto start = std::chrono::steady_clock::now();
  size_t aboveBound = 0, belowBestFit = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    size_t n = 1 + iter % 16;
    PackingProblem p =
        randomProblem(rng, n, density(rng), /*oddSizes=*/iter % 3 == 0);
    PackingResult r = packBuffers(p);
    checkResult(p, r);
    ASSERT_TRUE(r.provedOptimal) << "iteration " << iter << ", n = " << n
                                 << ", nodes = " << r.nodesExplored;
    aboveBound += r.total > r.lowerBound;
    belowBestFit += r.total < r.bestFitTotal;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Not a contract, just a sign that the search does real work.
  EXPECT_GT(aboveBound, 0u);
  EXPECT_GT(belowBestFit, 0u);
  RecordProperty("seconds", std::to_string(seconds));
}

/// Size of the largest connected set of interfering buffers.
size_t largestComponent(const PackingProblem &p) {
  size_t n = p.buffers.size(), best = 0;
  std::vector<bool> seen(n, false);
  for (size_t s = 0; s < n; ++s) {
    if (seen[s])
      continue;
    size_t size = 0;
    std::vector<size_t> stack = {s};
    seen[s] = true;
    while (!stack.empty()) {
      size_t a = stack.back();
      stack.pop_back();
      ++size;
      for (size_t b = 0; b < n; ++b)
        if (!seen[b] && p.interfere(a, b)) {
          seen[b] = true;
          stack.push_back(b);
        }
    }
    best = std::max(best, size);
  }
  return best;
}

TEST(SharedMemoryPackingTest, LargeComponentsUseBestFit) {
  std::mt19937_64 rng(99);
  for (size_t n : {17, 24, 32, 48, 64, 100}) {
    for (double density : {0.1, 0.4, 0.8}) {
      PackingProblem p = randomProblem(rng, n, density, /*oddSizes=*/n % 2);
      PackingResult r = packBuffers(p);
      checkResult(p, r);
      if (largestComponent(p) > 16) {
        EXPECT_EQ(r.method, PackingMethod::BestFitDecreasing);
        EXPECT_EQ(r.nodesExplored, 0u);
        EXPECT_EQ(r.provedOptimal, r.total == r.lowerBound);
      } else {
        EXPECT_NE(r.method, PackingMethod::BestFitDecreasing);
        EXPECT_TRUE(r.provedOptimal);
      }
    }
  }
}

// Many buffers in small separate phases: each component is solved exactly.
TEST(SharedMemoryPackingTest, SmallComponentsOfALargeKernelAreExact) {
  std::mt19937_64 rng(5);
  PackingProblem p;
  const size_t phases = 4, perPhase = 8;
  p.buffers.resize(phases * perPhase);
  p.interferes.assign(p.buffers.size(),
                      std::vector<bool>(p.buffers.size(), false));
  for (size_t i = 0; i < p.buffers.size(); ++i)
    p.buffers[i] = {1 + rng() % 300, uint64_t(1) << (rng() % 4)};
  for (size_t ph = 0; ph < phases; ++ph)
    for (size_t a = 0; a < perPhase; ++a)
      for (size_t b = 0; b < perPhase; ++b)
        if (a != b && (rng() % 3))
          p.interferes[ph * perPhase + a][ph * perPhase + b] =
              p.interferes[ph * perPhase + b][ph * perPhase + a] = true;
  PackingResult r = packBuffers(p);
  checkResult(p, r);
  EXPECT_EQ(r.method, PackingMethod::Exact);
  EXPECT_TRUE(r.provedOptimal);
  EXPECT_LE(r.total, r.bestFitTotal);
}

} // namespace
