//===- TileWork.cpp - index math of tile decompositions -------------------===//

#include "ext/Support/TileWork.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

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
                       function_ref<double(int64_t, double)> run,
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

Prediction predict(const Plan &p, int64_t sms, const CostModel &cost) {
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
        for (const Unit &u : unitsOf(p, c)) {
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

} // namespace ext::tilework
