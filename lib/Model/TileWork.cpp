//===- TileWork.cpp - index math of tile decompositions -------------------===//

#include "ext/Model/TileWork.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

// stringifyKind, symbolizeKind.
#include "ext/Model/TileWorkKinds.cpp.inc"

using namespace llvm;

namespace ext::tilework {

int64_t Plan::numSlots() const {
  switch (kind) {
  case Kind::DataParallel:
    return 0;
  case Kind::SplitKSerial:
    return (slices - 1) * tiles;
  case Kind::SplitKParallel:
    return slices * tiles;
  case Kind::StreamK:
  case Kind::StreamKDP:
  case Kind::StreamK2Tile:
    return skTiles ? skGrid : 0;
  }
  return 0;
}

static bool fail(std::string *why, const Twine &msg) {
  if (why)
    *why = msg.str();
  return false;
}

/// Sets the Stream-K region; checks that the index math cannot overflow.
static bool setStreamK(Plan &p, int64_t skTiles, int64_t skGrid,
                       std::string *why) {
  std::optional<int64_t> total = checkedMul(skTiles, p.iters);
  if (!total)
    return fail(why, "count the iterations of " + Twine(skTiles) +
                         " tiles in 64 bits");
  p.skTiles = skTiles;
  p.skGrid = std::min(skGrid, *total);
  // skBegin multiplies a CTA id (<= skGrid) by the iteration count, and
  // skCtaOf multiplies an iteration (< total) + 1 by skGrid.
  if (!checkedMul(*total, p.skGrid))
    return fail(why, "index " + Twine(*total) + " iterations over " +
                         Twine(p.skGrid) + " CTAs in 64 bits");
  return true;
}

std::optional<Plan> makePlan(Kind kind, int64_t tiles, int64_t iters,
                             int64_t sms, int64_t param, std::string *why) {
  Plan p;
  p.kind = kind;
  p.tiles = tiles;
  p.iters = iters;
  if (tiles < 1 || iters < 1) {
    fail(why, "decompose " + Twine(tiles) + " tiles of " + Twine(iters) +
                  " iterations");
    return std::nullopt;
  }
  auto needSms = [&]() {
    if (sms >= 1)
      return true;
    return fail(why, "choose a grid without the SM count (give `sms = N`, "
                     "or the chip to ext-apply-schedule)");
  };
  switch (kind) {
  case Kind::DataParallel:
    p.grid = tiles;
    return p;
  case Kind::SplitKSerial:
  case Kind::SplitKParallel: {
    if (param < 1 || param > iters) {
      fail(why, "split " + Twine(iters) + " iterations into " + Twine(param) +
                    " slices (each slice needs at least one)");
      return std::nullopt;
    }
    p.slices = param;
    std::optional<int64_t> grid = checkedMul(tiles, param);
    // s * iters in the slice bounds must not overflow either.
    if (!grid || !checkedMul(iters, param)) {
      fail(why, "count " + Twine(tiles) + " tiles times " + Twine(param) +
                    " slices in 64 bits");
      return std::nullopt;
    }
    p.grid = *grid;
    return p;
  }
  case Kind::StreamK: {
    int64_t g = param;
    if (g == 0) {
      if (!needSms())
        return std::nullopt;
      g = sms;
    }
    if (g < 1) {
      fail(why, "run Stream-K on a grid of " + Twine(g) + " CTAs");
      return std::nullopt;
    }
    if (!setStreamK(p, tiles, g, why))
      return std::nullopt;
    p.grid = p.skGrid;
    return p;
  }
  case Kind::StreamKDP:
  case Kind::StreamK2Tile: {
    if (!needSms())
      return std::nullopt;
    int64_t full = tiles / sms, rest = tiles % sms;
    int64_t skTiles = 0;
    if (rest != 0)
      skTiles = kind == Kind::StreamKDP || full == 0 ? rest : sms + rest;
    if (skTiles == 0) {
      p.grid = tiles; // full waves: data-parallel
      return p;
    }
    if (!setStreamK(p, skTiles, sms, why))
      return std::nullopt;
    p.grid = p.skGrid + (tiles - skTiles);
    return p;
  }
  }
  return std::nullopt;
}

int64_t skBegin(const Plan &p, int64_t cta) {
  return cta * p.skIters() / p.skGrid;
}

int64_t skCtaOf(const Plan &p, int64_t g) {
  // The c with floor(c * N / G) <= g < floor((c + 1) * N / G): c * N / G <
  // g + 1 iff c < (g + 1) * G / N.
  return ((g + 1) * p.skGrid - 1) / p.skIters();
}

SmallVector<Unit> unitsOf(const Plan &p, int64_t cta) {
  SmallVector<Unit> units;
  switch (p.kind) {
  case Kind::DataParallel:
    units.push_back({cta, 0, p.iters, Role::Whole, -1});
    return units;
  case Kind::SplitKSerial:
  case Kind::SplitKParallel: {
    int64_t s = cta / p.tiles, t = cta % p.tiles;
    Unit u{t, s * p.iters / p.slices, (s + 1) * p.iters / p.slices,
           Role::Contributor, cta};
    if (p.kind == Kind::SplitKSerial && s == p.slices - 1) {
      u.role = p.slices == 1 ? Role::Whole : Role::Owner;
      u.slot = -1;
    }
    units.push_back(u);
    return units;
  }
  case Kind::StreamK:
  case Kind::StreamKDP:
  case Kind::StreamK2Tile:
    break;
  }
  if (cta >= p.skGrid) {
    units.push_back({p.skTiles + cta - p.skGrid, 0, p.iters, Role::Whole, -1});
    return units;
  }
  int64_t begin = skBegin(p, cta), end = skBegin(p, cta + 1);
  // From the CTA's last iteration backward, one unit per tile it touches.
  for (int64_t e = end; e > begin;) {
    int64_t t = (e - 1) / p.iters, tileBegin = t * p.iters;
    int64_t s = std::max(begin, tileBegin);
    Unit u{t, s - tileBegin, e - tileBegin, Role::Contributor, cta};
    if (e == tileBegin + p.iters) {
      u.role = s == tileBegin ? Role::Whole : Role::Owner;
      u.slot = -1;
    }
    units.push_back(u);
    e = s;
  }
  return units;
}

SmallVector<int64_t> contributorsOf(const Plan &p, int64_t tile) {
  SmallVector<int64_t> slots;
  switch (p.kind) {
  case Kind::DataParallel:
    return slots;
  case Kind::SplitKSerial:
  case Kind::SplitKParallel: {
    int64_t n = p.kind == Kind::SplitKSerial ? p.slices - 1 : p.slices;
    for (int64_t s = 0; s < n; ++s)
      slots.push_back(s * p.tiles + tile);
    return slots;
  }
  case Kind::StreamK:
  case Kind::StreamKDP:
  case Kind::StreamK2Tile:
    break;
  }
  if (tile >= p.skTiles)
    return slots;
  int64_t first = skCtaOf(p, tile * p.iters);
  int64_t owner = skCtaOf(p, tile * p.iters + p.iters - 1);
  for (int64_t c = first; c < owner; ++c)
    slots.push_back(c);
  return slots;
}

SmallVector<int64_t> combinedBy(const Plan &p, const Unit &u) {
  SmallVector<int64_t> slots;
  if (u.role == Role::Whole || p.kind == Kind::SplitKParallel)
    return slots;
  SmallVector<int64_t> contributors = contributorsOf(p, u.tile);
  int64_t n = contributors.size(), rank = 0;
  if (u.role == Role::Contributor)
    rank = n - (llvm::find(contributors, u.slot) - contributors.begin());
  int64_t limit = rank == 0 ? n + 1 : rank & -rank;
  for (int64_t d = 1; d < limit && rank + d <= n; d *= 2)
    slots.push_back(contributors[n - (rank + d)]);
  return slots;
}

int64_t writerOfSlot(const Plan &p, int64_t slot) { return slot; }

int64_t ownerOf(const Plan &p, int64_t tile) {
  switch (p.kind) {
  case Kind::DataParallel:
  case Kind::SplitKParallel:
    return tile;
  case Kind::SplitKSerial:
    return (p.slices - 1) * p.tiles + tile;
  case Kind::StreamK:
  case Kind::StreamKDP:
  case Kind::StreamK2Tile:
    break;
  }
  if (tile >= p.skTiles)
    return p.skGrid + tile - p.skTiles;
  return skCtaOf(p, tile * p.iters + p.iters - 1);
}

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

CostModel CostModel::forTileK(int64_t tileK) {
  CostModel m;
  m.partialCost = 3.0 / double(std::max<int64_t>(tileK, 1));
  return m;
}

/// List scheduling of `durations` (a callback per CTA given its start time,
/// returning its end) on `sms` SMs in CTA order; returns the last end.
static double schedule(int64_t grid, int64_t sms,
                       llvm::function_ref<double(int64_t, double)> run,
                       double start) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> free;
  for (int64_t i = 0; i < std::min(grid, sms); ++i)
    free.push(start);
  double last = start;
  for (int64_t c = 0; c < grid; ++c) {
    double t = free.top();
    free.pop();
    double end = run(c, t);
    last = std::max(last, end);
    free.push(end);
  }
  return last;
}

/// The reference: every unit of every CTA.
static Prediction predictExact(const Plan &p, int64_t sms,
                               const CostModel &cost) {
  Prediction r;
  r.grid = p.grid;
  r.waves = divideCeil(p.grid, sms);
  r.meanItersPerCta = double(p.tiles) * double(p.iters) / double(p.grid);
  std::vector<double> ready(p.numSlots(), 0.0);
  std::vector<bool> split(p.tiles, false);
  double end = schedule(
      p.grid, sms,
      [&](int64_t c, double t) {
        int64_t iters = 0;
        SmallVector<Unit> units = unitsOf(p, c);
        for (const Unit &u : units) {
          int64_t len = u.kEnd - u.kBegin;
          iters += len;
          t += double(len);
          for (int64_t slot : combinedBy(p, u))
            t = std::max(t, ready[slot]) + cost.partialCost;
          if (u.role == Role::Contributor) {
            t += cost.partialCost;
            ready[u.slot] = t;
            ++r.fixups;
            split[u.tile] = true;
          }
        }
        r.maxItersPerCta = std::max(r.maxItersPerCta, iters);
        r.maxUnitsPerCta = std::max<int64_t>(r.maxUnitsPerCta, units.size());
        return t;
      },
      0.0);
  if (int64_t rg = p.reductionGrid())
    end = schedule(
        rg, sms,
        [&](int64_t, double t) { return t + p.slices * cost.partialCost; },
        end);
  r.splitTiles = std::count(split.begin(), split.end(), true);
  r.makespan = end;
  r.utilization = double(p.tiles) * double(p.iters) / (double(sms) * end);
  return r;
}

namespace {

/// The SMs of a launch as groups free at the same time: as many entries as
/// distinct free times, however many SMs.
class SmGroups {
public:
  SmGroups(int64_t sms, double start) : groups{{start, sms}} {}

  /// Takes the earliest free SM for a CTA; returns when the CTA starts.
  double start() {
    Group &first = groups.front();
    double t = first.free;
    if (first.count > 1) {
      --first.count;
    } else {
      std::pop_heap(groups.begin(), groups.end(), later);
      groups.pop_back();
    }
    return t;
  }

  /// Frees the SM of a CTA that ends at `end`.
  void finish(double end) {
    groups.push_back({end, 1});
    std::push_heap(groups.begin(), groups.end(), later);
  }

  /// Schedules `n` CTAs of duration `d`, each on the earliest free SM. The
  /// CTAs start at the n smallest times f + k d (k >= 0) over the SMs' free
  /// times f: with f = fmin + (a + phi) d (a an integer, 0 <= phi < 1), the
  /// n-th lies at the level L of f + k d where a + k = L, found by bisection
  /// on the number of starts below each level; the SMs of that level take
  /// the remaining CTAs in order of phi. Equal SMs are interchangeable, so
  /// ties do not change the result.
  void runEqual(int64_t n, double d) {
    if (n == 0 || d <= 0) // a CTA of no time leaves every SM as it was
      return;
    double fmin = groups.front().free;
    SmallVector<int64_t> level(groups.size());
    int64_t total = 0, maxLevel = 0;
    for (auto [g, a] : llvm::zip_equal(groups, level)) {
      // The earliest SMs alone start n CTAs below level n.
      a = int64_t(std::min(std::floor((g.free - fmin) / d), double(n)));
      total += g.count;
      maxLevel = std::max(maxLevel, a);
    }
    // The starts below level `below`, at most n.
    auto startsBelow = [&](int64_t below) {
      uint64_t count = 0;
      for (auto [g, a] : llvm::zip_equal(groups, level))
        if (a < below)
          count = std::min<uint64_t>(
              n, SaturatingMultiplyAdd<uint64_t>(g.count, below - a, count));
      return int64_t(count);
    };
    // Below level n / total - 1 fewer than n start; from maxLevel on every
    // SM starts one CTA per level.
    int64_t lo = std::max<int64_t>(0, n / total - 1);
    int64_t hi = maxLevel < n - n / total ? n / total + maxLevel + 1 : n;
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      if (startsBelow(mid) < n)
        lo = mid;
      else
        hi = mid;
    }
    int64_t rest = n - startsBelow(lo);
    SmallVector<size_t> atLevel;
    for (auto [i, a] : llvm::enumerate(level))
      if (a <= lo)
        atLevel.push_back(i);
    auto phi = [&](size_t i) { return groups[i].free - double(level[i]) * d; };
    llvm::sort(atLevel, [&](size_t x, size_t y) { return phi(x) < phi(y); });
    for (size_t i : atLevel) {
      if (rest == 0)
        break;
      int64_t take = std::min(rest, groups[i].count);
      rest -= take;
      int64_t k = lo - level[i] + 1;
      if (take < groups[i].count) {
        groups[i].count -= take;
        groups.push_back({groups[i].free + double(k) * d, take});
      } else {
        level[i] -= 1; // one more CTA below
      }
    }
    // The groups split off above follow those `level` covers: done.
    for (auto [g, a] : llvm::zip(groups, level))
      if (a < lo)
        g.free += double(lo - a) * d;
    // Merge SMs that now free up together.
    llvm::sort(groups, [](const Group &x, const Group &y) {
      return x.free < y.free;
    });
    SmallVector<Group> merged;
    for (const Group &g : groups) {
      if (!merged.empty() && merged.back().free == g.free)
        merged.back().count += g.count;
      else
        merged.push_back(g);
    }
    groups.assign(merged.begin(), merged.end());
    std::make_heap(groups.begin(), groups.end(), later);
  }

  /// When the last SM frees up.
  double last() const {
    double t = 0;
    for (const Group &g : groups)
      t = std::max(t, g.free);
    return t;
  }

private:
  struct Group {
    double free;
    int64_t count;
  };
  static bool later(const Group &x, const Group &y) { return x.free > y.free; }
  std::vector<Group> groups; // a heap, earliest first
};

} // namespace

/// Partials rank `rank` of a tile with `n` contributors combines in the tree
/// (combinedBy): ranks rank + d for d = 1, 2, 4, ... below lowbit(rank) (the
/// owner: any) and with rank + d <= n.
static int64_t treeFanIn(int64_t rank, int64_t n) {
  int64_t limit = rank == 0 ? n + 1 : rank & -rank, count = 0;
  for (int64_t d = 1; d < limit && rank + d <= n; d *= 2)
    ++count;
  return count;
}

/// Time `t` after the tree combines of CTA `cta` at rank `rank` of `n`
/// contributors, whose rank + d writes slot cta - d * stride.
static double combineTree(double t, int64_t cta, int64_t rank, int64_t n,
                          int64_t stride, ArrayRef<double> ready, double cost) {
  int64_t limit = rank == 0 ? n + 1 : rank & -rank;
  for (int64_t d = 1; d < limit && rank + d <= n; d *= 2)
    t = std::max(t, ready[cta - d * stride]) + cost;
  return t;
}

std::optional<Prediction> predictBounded(const Plan &p, int64_t sms,
                                         const CostModel &cost) {
  Prediction r;
  r.grid = p.grid;
  r.waves = divideCeil(p.grid, sms);
  r.meanItersPerCta = double(p.tiles) * double(p.iters) / double(p.grid);
  r.maxUnitsPerCta = 1;
  double pc = cost.partialCost;
  SmGroups sm(std::min(p.grid, sms), 0.0);
  double end = 0;
  switch (p.kind) {
  case Kind::DataParallel:
    r.maxItersPerCta = p.iters;
    sm.runEqual(p.tiles, double(p.iters));
    end = sm.last();
    break;
  case Kind::SplitKSerial:
  case Kind::SplitKParallel: {
    bool serial = p.kind == Kind::SplitKSerial;
    int64_t n = p.slices - 1; // contributors of a tile (serial)
    r.maxItersPerCta = divideCeil(p.iters, p.slices);
    r.fixups = serial ? n * p.tiles : p.slices * p.tiles;
    r.splitTiles = serial && n == 0 ? 0 : p.tiles;
    auto length = [&](int64_t s) {
      return (s + 1) * p.iters / p.slices - s * p.iters / p.slices;
    };
    if (!serial || p.tiles >= std::min(p.grid, sms)) {
      // One run per slice; the waits do not bind (see predictBounded).
      if (p.slices > kMaxEqualRuns)
        return std::nullopt;
      for (int64_t s = 0; s < p.slices; ++s) {
        int64_t fixups = serial ? treeFanIn(n - s, n) + (s < n) : 1;
        sm.runEqual(p.tiles, double(length(s)) + double(fixups) * pc);
      }
    } else {
      if (p.grid > kMaxSimulatedCtas)
        return std::nullopt;
      std::vector<double> ready(p.numSlots(), 0.0);
      for (int64_t c = 0; c < p.grid; ++c) {
        int64_t s = c / p.tiles;
        double t = sm.start() + double(length(s));
        t = combineTree(t, c, n - s, n, p.tiles, ready, pc);
        if (s < n)
          ready[c] = t += pc;
        sm.finish(t);
      }
    }
    end = sm.last();
    if (!serial) {
      SmGroups reduction(std::min(p.tiles, sms), end);
      reduction.runEqual(p.tiles, double(p.slices) * pc);
      end = reduction.last();
    }
    break;
  }
  case Kind::StreamK:
  case Kind::StreamKDP:
  case Kind::StreamK2Tile: {
    if (p.skGrid > kMaxSimulatedCtas)
      return std::nullopt;
    std::vector<double> ready(p.skGrid, 0.0);
    int64_t lastSplit = -1;
    for (int64_t c = 0; c < p.skGrid; ++c) {
      int64_t begin = skBegin(p, c), stop = skBegin(p, c + 1);
      int64_t first = begin / p.iters, last = (stop - 1) / p.iters;
      r.maxItersPerCta = std::max(r.maxItersPerCta, stop - begin);
      r.maxUnitsPerCta = std::max(r.maxUnitsPerCta, last - first + 1);
      double t = sm.start();
      // The unit of `tile` over [kBegin, kEnd), as unitsOf and combinedBy.
      auto unit = [&](int64_t tile, int64_t kBegin, int64_t kEnd) {
        t += double(kEnd - kBegin);
        if (kBegin == 0 && kEnd == p.iters)
          return;
        int64_t owner = skCtaOf(p, tile * p.iters + p.iters - 1);
        int64_t n = owner - skCtaOf(p, tile * p.iters);
        t = combineTree(t, c, owner - c, n, 1, ready, pc);
        if (kEnd == p.iters)
          return;
        ready[c] = t += pc;
        ++r.fixups;
        if (tile != lastSplit)
          ++r.splitTiles;
        lastSplit = tile;
      };
      // From the last iteration backward: the end of tile `last`, whole
      // tiles, the start of tile `first`.
      int64_t lastBegin = last * p.iters;
      unit(last, std::max(begin, lastBegin) - lastBegin, stop - lastBegin);
      if (last > first) {
        t += double(last - first - 1) * double(p.iters);
        unit(first, begin - first * p.iters, p.iters);
      }
      sm.finish(t);
    }
    if (p.grid > p.skGrid) {
      r.maxItersPerCta = std::max(r.maxItersPerCta, p.iters);
      sm.runEqual(p.grid - p.skGrid, double(p.iters));
    }
    end = sm.last();
    break;
  }
  }
  r.makespan = end;
  r.utilization = double(p.tiles) * double(p.iters) / (double(sms) * end);
  return r;
}

std::optional<Prediction> predict(const Plan &p, int64_t sms,
                                  const CostModel &cost) {
  if (p.grid <= kExactPredictionLimit && p.tiles <= kExactPredictionLimit)
    return predictExact(p, sms, cost);
  return predictBounded(p, sms, cost);
}

int64_t chooseAtLaunch(int64_t tiles, int64_t iters, int64_t sms,
                       const CostModel &cost, Prediction *prediction) {
  int64_t best = -1;
  Prediction bestPrediction;
  for (int64_t i = 0; i < kNumLaunchCandidates; ++i) {
    Kind kind = kLaunchCandidates[i];
    std::optional<Plan> plan =
        makePlan(kind, tiles, iters, sms, /*param=*/0, nullptr);
    if (!plan || plan->grid > std::numeric_limits<int32_t>::max())
      continue;
    std::optional<Prediction> p = predict(*plan, sms, cost);
    if (!p)
      continue;
    if (best < 0 || predictedFaster(p->makespan, bestPrediction.makespan)) {
      best = i;
      bestPrediction = *p;
    }
  }
  if (best >= 0 && prediction)
    *prediction = bestPrediction;
  return best;
}

} // namespace ext::tilework
