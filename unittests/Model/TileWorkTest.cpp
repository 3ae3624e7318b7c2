//===- TileWorkTest.cpp - properties of the decompositions' index math ----===//
//
// Over thousands of (M, N, K, tile, grid, SMs): every iteration of every tile
// is computed exactly once, each tile has one owner that runs its last
// iteration, contributors are earlier CTAs and write distinct slots, the tree
// fixup combines every partial exactly once and into its owner, Stream-K
// CTAs get equal shares within one iteration, and a simulation of the flag
// protocol under every resident-CTA bound finishes (no wait blocks forever).
//
//===----------------------------------------------------------------------===//

#include "ext/Model/TileWork.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <deque>
#include <map>
#include <random>
#include <set>

using namespace ext::tilework;

namespace {

constexpr Kind kAllKinds[] = {Kind::DataParallel, Kind::SplitKSerial,
                              Kind::SplitKParallel, Kind::StreamK,
                              Kind::StreamKDP, Kind::StreamK2Tile};

struct Problem {
  int64_t tiles, iters, sms, param;
};

/// The plan of `kind` for a problem: its param as split-K's slices (at most
/// 16 and the iterations) or Stream-K's grid.
std::optional<Plan> planFor(const Problem &pr, Kind kind,
                            std::string *why = nullptr) {
  int64_t param = pr.param;
  if (kind == Kind::SplitKSerial || kind == Kind::SplitKParallel)
    param = 1 + param % std::min<int64_t>(pr.iters, 16);
  return makePlan(kind, pr.tiles, pr.iters, pr.sms, param, why);
}

std::string describe(const Plan &p, int64_t sms) {
  return ("kind " + std::to_string(int(p.kind)) + " tiles=" + std::to_string(p.tiles) +
          " iters=" + std::to_string(p.iters) + " grid=" +
          std::to_string(p.grid) + " slices=" + std::to_string(p.slices) +
          " skTiles=" + std::to_string(p.skTiles) + " skGrid=" +
          std::to_string(p.skGrid) + " sms=" + std::to_string(sms));
}

/// Checks the static properties of one plan; returns false on a failure
/// (already reported).
bool checkPlan(const Plan &p, int64_t sms) {
  SCOPED_TRACE(describe(p, sms));
  std::vector<std::vector<int>> covered(p.tiles,
                                        std::vector<int>(p.iters, 0));
  std::vector<int64_t> owners(p.tiles, -1);
  std::vector<std::set<int64_t>> written(p.tiles);
  std::set<int64_t> slotsSeen;
  // The tree: which slots each slot's writer (or each tile's owner, as
  // -1 - tile) combined.
  std::map<int64_t, llvm::SmallVector<int64_t>> children;
  std::map<int64_t, int> timesCombined;
  int64_t minIters = INT64_MAX, maxIters = 0;
  bool ok = true;
  for (int64_t c = 0; c < p.grid; ++c) {
    int64_t iters = 0;
    auto units = unitsOf(p, c);
    for (auto [i, u] : llvm::enumerate(units)) {
      EXPECT_GE(u.tile, 0);
      EXPECT_LT(u.tile, p.tiles);
      EXPECT_GE(u.kBegin, 0);
      EXPECT_LT(u.kBegin, u.kEnd) << "empty unit in CTA " << c;
      EXPECT_LE(u.kEnd, p.iters);
      if (u.tile < 0 || u.tile >= p.tiles || u.kBegin < 0 ||
          u.kEnd > p.iters)
        return false;
      for (int64_t k = u.kBegin; k < u.kEnd; ++k)
        ++covered[u.tile][k];
      iters += u.kEnd - u.kBegin;
      switch (u.role) {
      case Role::Whole:
        EXPECT_EQ(u.kBegin, 0);
        [[fallthrough]];
      case Role::Owner:
        EXPECT_EQ(u.kEnd, p.iters) << "an owner runs the tile's last iteration";
        EXPECT_EQ(owners[u.tile], -1) << "tile " << u.tile << " owned twice";
        owners[u.tile] = c;
        EXPECT_EQ(u.slot, -1);
        // A CTA owns at most one split tile, and it is its first unit in
        // iteration order (its last in run order).
        if (u.role == Role::Owner && p.kind != Kind::SplitKParallel) {
          EXPECT_EQ(i + 1, units.size());
        }
        break;
      case Role::Contributor:
        EXPECT_TRUE(slotsSeen.insert(u.slot).second)
            << "slot " << u.slot << " written twice";
        EXPECT_GE(u.slot, 0);
        EXPECT_LT(u.slot, p.numSlots());
        EXPECT_EQ(writerOfSlot(p, u.slot), c);
        written[u.tile].insert(u.slot);
        // The partial is the CTA's first unit in run order: stored before
        // the tile it owns waits.
        EXPECT_EQ(i, 0u) << "a contributor unit runs first";
        break;
      }
      if (u.role == Role::Whole) {
        EXPECT_TRUE(combinedBy(p, u).empty());
      }
      for (int64_t s : combinedBy(p, u)) {
        // Every wait is on a partial of the same tile written by a CTA that
        // started earlier.
        auto tileContributors = contributorsOf(p, u.tile);
        EXPECT_TRUE(llvm::is_contained(tileContributors, s))
            << "slot " << s << " combined into tile " << u.tile;
        EXPECT_LT(writerOfSlot(p, s), c);
        ++timesCombined[s];
        children[u.role == Role::Owner ? -1 - u.tile : u.slot].push_back(s);
      }
    }
    if (p.kind != Kind::SplitKParallel &&
        (p.kind != Kind::StreamK && p.kind != Kind::StreamKDP &&
         p.kind != Kind::StreamK2Tile)) {
      EXPECT_EQ(units.size(), 1u);
    }
    if (c < p.skGrid) {
      minIters = std::min(minIters, iters);
      maxIters = std::max(maxIters, iters);
    }
  }
  for (int64_t t = 0; t < p.tiles; ++t) {
    for (int64_t k = 0; k < p.iters; ++k)
      if (covered[t][k] != 1) {
        ADD_FAILURE() << "tile " << t << " iteration " << k << " computed "
                      << covered[t][k] << " times";
        return false;
      }
    auto contributors = contributorsOf(p, t);
    std::set<int64_t> contribSet(contributors.begin(), contributors.end());
    EXPECT_EQ(contribSet, written[t]) << "contributors of tile " << t;
    EXPECT_TRUE(std::is_sorted(contributors.begin(), contributors.end()));
    if (p.kind == Kind::SplitKParallel) {
      EXPECT_EQ(owners[t], -1);
      EXPECT_EQ((int64_t)contributors.size(), p.slices);
      continue;
    }
    EXPECT_NE(owners[t], -1) << "tile " << t << " has no owner";
    EXPECT_EQ(owners[t], ownerOf(p, t));
    for (int64_t slot : contributors)
      EXPECT_LT(writerOfSlot(p, slot), owners[t]);
    // The tree reaches every contributor from the owner, each once.
    std::set<int64_t> reached;
    llvm::SmallVector<int64_t> todo = children[-1 - t];
    while (!todo.empty()) {
      int64_t s = todo.pop_back_val();
      EXPECT_TRUE(reached.insert(s).second) << "slot " << s << " reached twice";
      todo.append(children[s]);
    }
    EXPECT_EQ(reached, contribSet) << "the tree of tile " << t;
    // The owner combines ceil(log2(n + 1)) partials.
    EXPECT_EQ((int64_t)children[-1 - t].size(),
              llvm::Log2_64_Ceil(contributors.size() + 1));
  }
  for (auto [s, times] : timesCombined)
    EXPECT_EQ(times, 1) << "slot " << s << " combined " << times << " times";
  if (p.skGrid > 0) {
    EXPECT_LE(maxIters - minIters, 1) << "Stream-K shares differ by more than "
                                         "one iteration";
    int64_t n = p.skIters();
    EXPECT_EQ(maxIters, llvm::divideCeil(n, p.skGrid));
    EXPECT_EQ(minIters, n / p.skGrid);
  }
  return ok && !::testing::Test::HasFailure();
}

/// Runs the flag protocol with at most `resident` CTAs resident at once
/// (admitted in id order as others finish), picking the next CTA to step at
/// random. Returns false if every resident CTA is blocked.
bool simulate(const Plan &p, int64_t resident, std::mt19937_64 &rng) {
  struct Cta {
    std::vector<std::pair<int, int64_t>> steps; // (0 run, 1 signal, 2 wait)
    size_t pc = 0;
  };
  auto stepsOf = [&](int64_t c) {
    Cta cta;
    for (const Unit &u : unitsOf(p, c)) {
      cta.steps.push_back({0, 0});
      for (int64_t s : combinedBy(p, u))
        cta.steps.push_back({2, s});
      if (u.role == Role::Contributor)
        cta.steps.push_back({1, u.slot});
    }
    return cta;
  };
  std::vector<bool> flag(p.numSlots(), false);
  std::deque<std::pair<int64_t, Cta>> live;
  int64_t next = 0, done = 0;
  while (done < p.grid) {
    while (next < p.grid && (int64_t)live.size() < resident) {
      live.push_back({next, stepsOf(next)});
      ++next;
    }
    std::vector<size_t> runnable;
    for (size_t i = 0; i < live.size(); ++i) {
      Cta &c = live[i].second;
      if (c.pc == c.steps.size() || c.steps[c.pc].first != 2 ||
          flag[c.steps[c.pc].second])
        runnable.push_back(i);
    }
    if (runnable.empty())
      return false;
    size_t i = runnable[rng() % runnable.size()];
    Cta &c = live[i].second;
    if (c.pc == c.steps.size()) {
      live.erase(live.begin() + i);
      ++done;
      continue;
    }
    if (c.steps[c.pc].first == 1)
      flag[c.steps[c.pc].second] = true;
    ++c.pc;
  }
  return true;
}

/// Tiles and iterations of a GEMM M x N x K with tile BM x BN x BK.
Problem gemm(int64_t m, int64_t n, int64_t k, int64_t bm, int64_t bn,
             int64_t bk, int64_t sms, int64_t param) {
  return {int64_t(llvm::divideCeil(m, bm) * llvm::divideCeil(n, bn)),
          int64_t(llvm::divideCeil(k, bk)), sms, param};
}

std::vector<Problem> randomProblems(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::initializer_list<int64_t> v) {
    return *(v.begin() + rng() % v.size());
  };
  std::vector<Problem> out;
  for (int i = 0; i < count; ++i) {
    int64_t m = 1 + rng() % 700, n = 1 + rng() % 700, k = 1 + rng() % 1200;
    int64_t bm = pick({16, 32, 64, 128}), bn = pick({16, 32, 64, 128}),
            bk = pick({8, 16, 32, 64});
    int64_t sms = pick({1, 2, 3, 4, 7, 8, 13, 104, 108, 132, 304});
    int64_t param = rng() % 3 == 0 ? 0 : 1 + rng() % 40;
    out.push_back(gemm(m, n, k, bm, bn, bk, sms, param));
  }
  // Uneven grids over 9 tiles, the small-M and m != n shapes users reported
  // deadlocks and wrong results on (NVIDIA/cutlass#1917, #2238, #1145).
  for (int64_t g : {1, 2, 5, 6, 7, 8, 9, 10, 17, 40})
    out.push_back({9, 8, 7, g});
  out.push_back(gemm(16, 4096, 4096, 128, 128, 32, 132, 0));
  out.push_back(gemm(8, 256, 8192, 64, 64, 32, 108, 0));
  out.push_back(gemm(384, 128, 640, 128, 128, 64, 132, 0));
  out.push_back(gemm(128, 3840, 2048, 128, 128, 32, 132, 0));
  out.push_back(gemm(133 * 128, 128, 512, 128, 128, 32, 132, 0));
  return out;
}

TEST(TileWork, IndexMathCoversEveryIterationOnceWithOneOwner) {
  int checked = 0;
  for (const Problem &pr : randomProblems(1500, 1)) {
    for (Kind kind : kAllKinds) {
      std::string why;
      std::optional<Plan> p = planFor(pr, kind, &why);
      ASSERT_TRUE(p) << "kind " << int(kind) << ": cannot " << why;
      if (!checkPlan(*p, pr.sms))
        return;
      ++checked;
    }
  }
  EXPECT_GT(checked, 9000);
}

TEST(TileWork, NoWaitBlocksForeverUnderAnyResidentBound) {
  std::mt19937_64 rng(7);
  int runs = 0;
  for (const Problem &pr : randomProblems(250, 2)) {
    for (Kind kind : kAllKinds) {
      std::optional<Plan> p = planFor(pr, kind);
      ASSERT_TRUE(p);
      if (p->grid > 3000)
        continue;
      for (int64_t resident : {int64_t(1), int64_t(2), int64_t(3),
                               int64_t(1 + rng() % 16), p->grid}) {
        ASSERT_TRUE(simulate(*p, resident, rng))
            << "deadlock: " << describe(*p, pr.sms)
            << " resident=" << resident;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 3000);
}

TEST(TileWork, StreamKShapes) {
  // 9 tiles of 8 iterations on 7 CTAs: 72 iterations, shares 10 or 11.
  std::optional<Plan> p = makePlan(Kind::StreamK, 9, 8, 132, 7, nullptr);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->grid, 7);
  EXPECT_EQ(skBegin(*p, 1), 10);
  EXPECT_EQ(skBegin(*p, 7), 72);
  auto u0 = unitsOf(*p, 0); // [0, 10): tile 1 [0, 2) then tile 0 whole
  ASSERT_EQ(u0.size(), 2u);
  EXPECT_EQ(u0[0].tile, 1);
  EXPECT_EQ(u0[0].role, Role::Contributor);
  EXPECT_EQ(u0[1].tile, 0);
  EXPECT_EQ(u0[1].role, Role::Whole);
  auto u1 = unitsOf(*p, 1); // [10, 20): tile 2 [0, 4), tile 1 [2, 8) owner
  ASSERT_EQ(u1.size(), 2u);
  EXPECT_EQ(u1[1].role, Role::Owner);
  EXPECT_EQ(u1[1].kBegin, 2);
  EXPECT_EQ(contributorsOf(*p, 1), llvm::SmallVector<int64_t>({0}));
  // A grid larger than the iterations is clamped: one iteration each.
  p = makePlan(Kind::StreamK, 2, 3, 132, 100, nullptr);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->grid, 6);
  EXPECT_EQ(contributorsOf(*p, 1), llvm::SmallVector<int64_t>({3, 4}));
}

TEST(TileWork, TreeFixup) {
  // One tile of 10 iterations on 10 CTAs: CTA 9 owns it, CTAs 0..8 write
  // slots 0..8 (ranks 9..1). The owner combines ranks 1, 2, 4, 8; rank 8
  // (CTA 1) combines rank 9 (CTA 0); rank 4 (CTA 5) ranks 5 and 6; rank 6
  // (CTA 3) rank 7; rank 2 (CTA 7) rank 3.
  std::optional<Plan> p = makePlan(Kind::StreamK, 1, 10, 132, 10, nullptr);
  ASSERT_TRUE(p);
  auto tree = [&](int64_t cta) { return combinedBy(*p, unitsOf(*p, cta)[0]); };
  using V = llvm::SmallVector<int64_t>;
  EXPECT_EQ(tree(9), V({8, 7, 5, 1}));
  EXPECT_EQ(tree(1), V({0}));
  EXPECT_EQ(tree(5), V({4, 3}));
  EXPECT_EQ(tree(3), V({2}));
  EXPECT_EQ(tree(7), V({6}));
  for (int64_t leaf : {0, 2, 4, 6, 8})
    EXPECT_EQ(tree(leaf), V()) << leaf;
  // Serial split-K with 4 slices of 2 tiles: slot s * 2 + t, the owner (slice
  // 3) combines slices 2 and 1, slice 1 combines slice 0.
  p = makePlan(Kind::SplitKSerial, 2, 8, 132, 4, nullptr);
  ASSERT_TRUE(p);
  EXPECT_EQ(tree(7), V({5, 3}));
  EXPECT_EQ(tree(3), V({1}));
  EXPECT_EQ(tree(5), V());
}

TEST(TileWork, HybridsSplitOnlyThePartialWaves) {
  // 133 tiles on 132 SMs: stream_k_dp Stream-Ks 1 tile, 2tile 133 tiles.
  std::optional<Plan> dp1 = makePlan(Kind::StreamKDP, 133, 16, 132, 0, nullptr);
  std::optional<Plan> two = makePlan(Kind::StreamK2Tile, 265, 16, 132, 0, nullptr);
  ASSERT_TRUE(dp1 && two);
  EXPECT_EQ(dp1->skTiles, 1);
  EXPECT_EQ(dp1->skGrid, 16); // one tile's 16 iterations, one per CTA
  EXPECT_EQ(dp1->grid, 16 + 132);
  EXPECT_EQ(two->skTiles, 133);
  EXPECT_EQ(two->grid, 132 + 132);
  // Full waves stay data-parallel.
  std::optional<Plan> full = makePlan(Kind::StreamK2Tile, 264, 16, 132, 0, nullptr);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->skTiles, 0);
  EXPECT_EQ(full->grid, 264);
}

TEST(TileWork, BadParametersAreRefused) {
  std::string why;
  EXPECT_FALSE(makePlan(Kind::SplitKSerial, 4, 3, 132, 4, &why));
  EXPECT_NE(why.find("3 iterations into 4 slices"), std::string::npos) << why;
  EXPECT_FALSE(makePlan(Kind::StreamK, 4, 3, 0, 0, &why));
  EXPECT_NE(why.find("SM count"), std::string::npos) << why;
  EXPECT_FALSE(makePlan(Kind::StreamKDP, 4, 3, 0, 0, &why));
  EXPECT_FALSE(makePlan(Kind::StreamK, INT64_MAX / 2, 4, 132, 0, &why));
  EXPECT_FALSE(makePlan(Kind::DataParallel, 0, 4, 132, 0, &why));
}

TEST(TileWork, CostModel) {
  CostModel cost = CostModel::forTileK(32);
  // Data-parallel wave efficiency t / (S * ceil(t / S)).
  for (int64_t t : {1, 131, 132, 133, 264, 265, 1000}) {
    std::optional<Plan> p = makePlan(Kind::DataParallel, t, 10, 132, 0, nullptr);
    std::optional<Prediction> pr = predict(*p, 132, cost);
    ASSERT_TRUE(pr);
    EXPECT_DOUBLE_EQ(pr->utilization,
                     double(t) / (132.0 * llvm::divideCeil(t, 132)));
  }
  // One wave of 133 tiles on 132 SMs: ~50% data-parallel, Stream-K near 1.
  std::optional<Plan> dp = makePlan(Kind::DataParallel, 133, 64, 132, 0, nullptr);
  std::optional<Plan> sk = makePlan(Kind::StreamK, 133, 64, 132, 0, nullptr);
  EXPECT_NEAR(predict(*dp, 132, cost)->utilization, 133.0 / 264, 1e-9);
  std::optional<Prediction> psk = predict(*sk, 132, cost);
  EXPECT_GT(psk->utilization, 0.95);
  EXPECT_EQ(psk->maxItersPerCta, llvm::divideCeil(133 * 64, 132));
}

/// Problems for the bounded model: the random ones, and many waves of tiles
/// after a Stream-K region or split over slices on few SMs.
std::vector<Problem> boundedProblems() {
  std::vector<Problem> out = randomProblems(1500, 3);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 500; ++i) {
    int64_t sms = std::vector<int64_t>{1, 2, 3, 7, 16, 108, 132}[rng() % 7];
    out.push_back({1 + int64_t(rng() % 8000), 1 + int64_t(rng() % 64), sms,
                   int64_t(rng() % 3 == 0 ? 0 : 1 + rng() % 300)});
  }
  return out;
}

TEST(TileWork, BoundedPredictionAgreesWithTheSimulation) {
  int compared = 0;
  for (const Problem &pr : boundedProblems()) {
    for (Kind kind : kAllKinds) {
      std::optional<Plan> p = planFor(pr, kind);
      ASSERT_TRUE(p);
      if (p->grid > kExactPredictionLimit)
        continue;
      SCOPED_TRACE(describe(*p, pr.sms));
      // Fixups dear and cheap: waits bind more when partials cost more.
      for (double partialCost : {0.09375, 2.5}) {
        CostModel cost;
        cost.partialCost = partialCost;
        std::optional<Prediction> exact = predict(*p, pr.sms, cost);
        std::optional<Prediction> bounded = predictBounded(*p, pr.sms, cost);
        ASSERT_TRUE(exact && bounded);
        EXPECT_EQ(bounded->grid, exact->grid);
        EXPECT_EQ(bounded->waves, exact->waves);
        EXPECT_EQ(bounded->maxItersPerCta, exact->maxItersPerCta);
        EXPECT_EQ(bounded->maxUnitsPerCta, exact->maxUnitsPerCta);
        EXPECT_EQ(bounded->meanItersPerCta, exact->meanItersPerCta);
        EXPECT_EQ(bounded->fixups, exact->fixups);
        EXPECT_EQ(bounded->splitTiles, exact->splitTiles);
        // Runs add d * k where the simulation adds d k times: rounding.
        EXPECT_NEAR(bounded->makespan, exact->makespan,
                    1e-9 * exact->makespan);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 20000);
}

TEST(TileWork, PredictsTwoToTheFortyTiles) {
  CostModel cost = CostModel::forTileK(32);
  int64_t tiles = int64_t(1) << 40, iters = 16, sms = 132;
  for (Kind kind : kAllKinds) {
    for (int64_t param : {0, 2, 16}) {
      if ((kind == Kind::SplitKSerial || kind == Kind::SplitKParallel) !=
          (param != 0))
        continue;
      std::optional<Plan> p = makePlan(kind, tiles, iters, sms, param, nullptr);
      ASSERT_TRUE(p);
      SCOPED_TRACE(describe(*p, sms));
      std::optional<Prediction> r = predict(*p, sms, cost);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->waves, llvm::divideCeil(p->grid, sms));
      EXPECT_GT(r->utilization, 0.8);
      EXPECT_LE(r->utilization, 1.0);
      EXPECT_GE(r->makespan, double(tiles) * iters / sms);
      if (kind == Kind::StreamK) {
        EXPECT_EQ(r->maxItersPerCta, llvm::divideCeil(tiles * iters, sms));
        EXPECT_EQ(r->maxUnitsPerCta, llvm::divideCeil(tiles, sms) + 1);
      }
    }
  }
  // SMs are grouped by free time: a CTA per SM costs nothing either.
  std::optional<Plan> dp =
      makePlan(Kind::DataParallel, tiles, iters, tiles, 0, nullptr);
  std::optional<Prediction> r = predict(*dp, tiles, cost);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->makespan, double(iters));
}

TEST(TileWork, BoundedPredictionRefusesHugeStreamKGrids) {
  CostModel cost = CostModel::forTileK(32);
  std::optional<Plan> p = makePlan(Kind::StreamK, int64_t(1) << 30, 64, 132,
                                   kMaxSimulatedCtas + 1, nullptr);
  ASSERT_TRUE(p);
  EXPECT_FALSE(predict(*p, 132, cost));
  p = makePlan(Kind::StreamK, int64_t(1) << 30, 64, 132, kMaxSimulatedCtas,
               nullptr);
  EXPECT_TRUE(predict(*p, 132, cost));
}

} // namespace

TEST(TileWork, ChoiceAtLaunchIsTheBestLaunchCandidate) {
  CostModel cost = CostModel::forTileK(32);
  std::set<Kind> chosen;
  for (int64_t sms : {4, 108, 132})
    for (int64_t tiles = 1; tiles <= 600; tiles += 7)
      for (int64_t iters : {1, 8, 64}) {
        Prediction p;
        int64_t i = chooseAtLaunch(tiles, iters, sms, cost, &p);
        ASSERT_GE(i, 0);
        chosen.insert(kLaunchCandidates[i]);
        // No candidate is predicted faster, and none before it as fast.
        for (int64_t j = 0; j < kNumLaunchCandidates; ++j) {
          std::optional<Plan> plan =
              makePlan(kLaunchCandidates[j], tiles, iters, sms, 0, nullptr);
          ASSERT_TRUE(plan);
          std::optional<Prediction> q = predict(*plan, sms, cost);
          ASSERT_TRUE(q);
          EXPECT_GE(q->makespan, p.makespan * (1 - 1e-9))
              << tiles << " tiles, " << iters << " iterations, " << sms;
          if (j < i)
            EXPECT_GE(q->makespan * (1 - 1e-9), p.makespan);
        }
      }
  // The choice depends on the problem: full waves need no Stream-K.
  EXPECT_TRUE(chosen.count(Kind::DataParallel));
  EXPECT_TRUE(chosen.count(Kind::StreamK));
  EXPECT_EQ(kLaunchCandidates[chooseAtLaunch(264, 8, 132, cost)],
            Kind::DataParallel);
}

TEST(TileWork, KindNames) {
  for (Kind kind : kAllKinds)
    EXPECT_EQ(kindNamed(kindName(kind)), kind);
  EXPECT_EQ(kindNamed("split_k_2"), std::nullopt);
}
