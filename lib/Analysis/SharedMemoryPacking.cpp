//===- SharedMemoryPacking.cpp - pack shared-memory buffers ---------------===//
//
// Dynamic storage allocation (DSA) is NP-hard, but the problems a kernel hands
// us are small: up to a few dozen shared-memory buffers. We therefore solve
// them exactly when there are few buffers (branch and bound, below) and fall
// back to best-fit decreasing otherwise. Everything here is standard C++17 and
// uses neither exceptions nor RTTI, so it builds with LLVM's flags.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryPackingGraph.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <memory>
#include <numeric>
#include <utility>

namespace ext {
namespace smem {

bool PackingProblem::interfere(size_t a, size_t b) const {
  if (a == b)
    return false;
  auto at = [&](size_t r, size_t c) {
    return r < interferes.size() && c < interferes[r].size() &&
           interferes[r][c];
  };
  return at(a, b) || at(b, a);
}

using namespace detail;

namespace {

//===----------------------------------------------------------------------===//
// Greedy placement
//===----------------------------------------------------------------------===//

/// Places `order` one buffer at a time, each against the interfering buffers
/// placed before it (`offsets` of the others are ignored). The occupied
/// intervals of those neighbours, sorted by start, leave gaps [cursor, start)
/// and a final unbounded gap above everything. With `bestFit`, the buffer
/// takes the gap of smallest length (measured before alignment, ties to the
/// lower gap) whose first aligned offset still holds it; without, the lowest
/// such gap (first fit). Either way it sits at the lowest aligned offset of
/// the chosen gap, and the unbounded gap is the fallback.
void placeGreedy(const Graph &g, const std::vector<size_t> &order, bool bestFit,
                 std::vector<uint64_t> &offsets) {
  std::vector<char> placed(g.n, 0);
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (size_t i : order) {
    placed[i] = 1;
    offsets[i] = 0;
    if (g.size[i] == 0)
      continue;
    busy.clear();
    for (size_t j : g.adj[i])
      if (placed[j])
        busy.emplace_back(offsets[j], offsets[j] + g.size[j]);
    std::sort(busy.begin(), busy.end());
    uint64_t cursor = 0, chosen = kNoBound, chosenGap = kNoBound;
    for (const auto &[start, end] : busy) {
      if (start > cursor) {
        uint64_t at = alignUp(cursor, g.align[i]);
        uint64_t gap = start - cursor;
        if (at + g.size[i] <= start && gap < chosenGap) {
          chosen = at;
          chosenGap = gap;
          if (!bestFit)
            break;
        }
      }
      cursor = std::max(cursor, end);
    }
    offsets[i] = chosen != kNoBound ? chosen : alignUp(cursor, g.align[i]);
  }
}

std::vector<size_t> bestFitOrder(const Graph &g, std::vector<size_t> members) {
  std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    if (g.size[a] != g.size[b])
      return g.size[a] > g.size[b];
    if (g.align[a] != g.align[b])
      return g.align[a] > g.align[b];
    return a < b;
  });
  return members;
}

std::vector<size_t> allBuffers(const Graph &g) {
  std::vector<size_t> all(g.n);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

/// No reuse at all: members end to end by decreasing alignment. Each offset
/// is then a multiple of every later alignment, so the footprint is at most
/// the sum of aligned sizes. Best-fit decreasing can lose to this when large
/// alignments follow odd sizes; it serves as a seed and a safety net.
void placeEndToEnd(const Graph &g, std::vector<size_t> members,
                   std::vector<uint64_t> &offsets) {
  std::stable_sort(members.begin(), members.end(),
                   [&](size_t a, size_t b) { return g.align[a] > g.align[b]; });
  uint64_t cursor = 0;
  for (size_t i : members) {
    offsets[i] = alignUp(cursor, g.align[i]);
    cursor = offsets[i] + g.size[i];
  }
}

uint64_t footprintOf(const Graph &g, const std::vector<size_t> &members,
                     const std::vector<uint64_t> &offsets) {
  uint64_t end = 0;
  for (size_t i : members)
    end = std::max(end, offsets[i] + g.size[i]);
  return end;
}
/// greedy clique grown from every vertex (heaviest compatible neighbour
/// first). Any clique is a valid lower bound, only a weaker one.
uint64_t componentClique(const Graph &g, const std::vector<size_t> &members) {
  if (members.size() <= 64) {
    std::vector<uint64_t> w;
    for (size_t i : members)
      w.push_back(g.size[i]);
    return CliqueSolver(std::move(w), g.localMasks(members)).solve();
  }
  std::vector<size_t> byWeight = bestFitOrder(g, members);
  uint64_t best = 0;
  std::vector<size_t> clique;
  for (size_t seed : byWeight) {
    clique.assign(1, seed);
    uint64_t w = g.size[seed];
    for (size_t v : byWeight)
      if (v != seed && std::all_of(clique.begin(), clique.end(),
                                   [&](size_t c) { return g.edge(c, v); })) {
        clique.push_back(v);
        w += g.size[v];
      }
    best = std::max(best, w);
  }
  return best;
}

uint64_t cliqueBound(const Graph &g,
                     const std::vector<std::vector<size_t>> &comps) {
  uint64_t bound = 0;
  for (const auto &comp : comps)
    bound = std::max(bound, componentClique(g, comp));
  return bound;
}
} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

std::vector<uint64_t> bestFitDecreasing(const PackingProblem &p) {
  Graph g(p);
  std::vector<uint64_t> offsets(g.n, 0);
  placeGreedy(g, bestFitOrder(g, allBuffers(g)), /*bestFit=*/true, offsets);
  return offsets;
}

uint64_t footprint(const PackingProblem &p,
                   const std::vector<uint64_t> &offsets) {
  uint64_t end = 0;
  for (size_t i = 0; i < p.buffers.size() && i < offsets.size(); ++i)
    end = std::max(end, offsets[i] + p.buffers[i].size);
  return end;
}

uint64_t maxWeightCliqueBound(const PackingProblem &p) {
  Graph g(p);
  return cliqueBound(g, g.components());
}

bool isValidPacking(const PackingProblem &p,
                    const std::vector<uint64_t> &offsets, std::string *why) {
  auto fail = [&](std::string msg) {
    if (why)
      *why = std::move(msg);
    return false;
  };
  size_t n = p.buffers.size();
  if (offsets.size() != n)
    return fail("expected " + std::to_string(n) + " offsets, got " +
                std::to_string(offsets.size()));
  for (size_t i = 0; i < n; ++i)
    if (offsets[i] % alignmentOf(p.buffers[i]) != 0)
      return fail("buffer " + std::to_string(i) + " at offset " +
                  std::to_string(offsets[i]) + " is not aligned to " +
                  std::to_string(alignmentOf(p.buffers[i])));
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b) {
      uint64_t sa = p.buffers[a].size, sb = p.buffers[b].size;
      if (!sa || !sb || !p.interfere(a, b))
        continue;
      if (offsets[a] < offsets[b] + sb && offsets[b] < offsets[a] + sa)
        return fail("interfering buffers " + std::to_string(a) + " [" +
                    std::to_string(offsets[a]) + ", " +
                    std::to_string(offsets[a] + sa) + ") and " +
                    std::to_string(b) + " [" + std::to_string(offsets[b]) +
                    ", " + std::to_string(offsets[b] + sb) + ") overlap");
    }
  return true;
}

uint64_t naiveSum(const PackingProblem &p) {
  uint64_t sum = 0;
  for (const PackingBuffer &b : p.buffers)
    sum += alignUp(b.size, alignmentOf(b));
  return sum;
}

PackingResult packBuffers(const PackingProblem &p, const PackingOptions &opts) {
  Graph g(p);
  std::vector<std::vector<size_t>> comps = g.components();
  PackingResult result;
  result.naiveSum = naiveSum(p);
  result.lowerBound = cliqueBound(g, comps);
  std::vector<uint64_t> bestFit(g.n, 0);
  placeGreedy(g, bestFitOrder(g, allBuffers(g)), /*bestFit=*/true, bestFit);
  result.bestFitTotal = footprint(p, bestFit);

  if (g.n <= 1 || !g.hasEdges()) {
    result.offsets.assign(g.n, 0);
    result.total = footprint(p, result.offsets);
    result.method = PackingMethod::Trivial;
    result.provedOptimal = true;
    return result;
  }

  // Components are independent, so the limit is on the largest one: a
  // kernel of many buffers in small separate phases is still solved exactly.
  size_t largest = 0;
  for (const auto &comp : comps)
    largest = std::max(largest, comp.size());
  if (largest > opts.exactLimit) {
    result.method = PackingMethod::BestFitDecreasing;
    result.offsets = bestFit;
    // Never worse than no reuse at all.
    std::vector<uint64_t> flat(g.n, 0);
    placeEndToEnd(g, allBuffers(g), flat);
    if (footprint(p, flat) < result.bestFitTotal)
      result.offsets = flat;
    result.total = footprint(p, result.offsets);
    result.provedOptimal = result.total == result.lowerBound;
    return result;
  }

  result.method = PackingMethod::Exact;
  result.offsets.assign(g.n, 0);
  // The footprint is the maximum over components, and each can start at 0,
  // so they are solved one by one. Every component's bound bounds the whole
  // (the target the searches stop at), and a component proved optimal raises
  // it further: the later ones only need to get under it. Hence the
  // components with the highest bound go first.
  struct Component {
    const std::vector<size_t> *members;
    std::unique_ptr<ExactSearch> search;
    uint64_t bound;
  };
  std::vector<Component> work;
  uint64_t target = result.lowerBound;
  for (const auto &comp : comps) {
    if (comp.size() == 1)
      continue; // offset 0
    Component c{&comp, nullptr, componentClique(g, comp)};
    if (comp.size() <= 64) {
      c.search = std::make_unique<ExactSearch>(g, comp);
      c.bound = c.search->lowerBound();
    }
    target = std::max(target, c.bound);
    work.push_back(std::move(c));
  }
  std::stable_sort(
      work.begin(), work.end(),
      [](const Component &a, const Component &b) { return a.bound > b.bound; });

  uint64_t budgetLeft = opts.nodeBudget;
  // Components the search could not settle, with what they reached.
  std::vector<uint64_t> unsettled;
  std::vector<uint64_t> trial(g.n, 0);
  for (Component &c : work) {
    const std::vector<size_t> &comp = *c.members;
    // Seed with the best of a few greedy packings.
    uint64_t seedEnd = kNoBound;
    std::vector<uint64_t> seed(g.n, 0);
    auto keep = [&] {
      uint64_t end = footprintOf(g, comp, trial);
      if (end < seedEnd) {
        seedEnd = end;
        for (size_t i : comp)
          seed[i] = trial[i];
      }
    };
    std::vector<size_t> bySize = bestFitOrder(g, comp);
    std::vector<size_t> byAlign = bySize;
    std::stable_sort(byAlign.begin(), byAlign.end(), [&](size_t a, size_t b) {
      return g.align[a] > g.align[b];
    });
    for (const auto *order : {&bySize, &byAlign})
      for (bool fit : {true, false}) {
        placeGreedy(g, *order, fit, trial);
        keep();
      }
    placeEndToEnd(g, comp, trial);
    keep();
    if (c.search)
      for (const std::vector<unsigned> &chain : c.search->seedOrders()) {
        std::vector<size_t> order;
        std::vector<char> taken(g.n, 0);
        for (unsigned k : chain) {
          order.push_back(comp[k]);
          taken[comp[k]] = 1;
        }
        for (size_t i : bySize)
          if (!taken[i])
            order.push_back(i);
        for (bool fit : {true, false}) {
          placeGreedy(g, order, fit, trial);
          keep();
        }
      }

    if (!c.search) {
      for (size_t i : comp)
        result.offsets[i] = seed[i];
      unsettled.push_back(seedEnd);
      continue;
    }

    std::vector<uint64_t> local;
    for (size_t i : comp)
      local.push_back(seed[i]);
    uint64_t best = seedEnd, nodes = 0;
    bool settled = c.search->run(target, budgetLeft, best, local, nodes);
    c.search.reset();
    result.nodesExplored += nodes;
    budgetLeft -= std::min(budgetLeft, nodes);
    for (size_t k = 0; k < comp.size(); ++k)
      result.offsets[comp[k]] = local[k];
    if (settled)
      target = std::max(target, best);
    else
      unsettled.push_back(best);
  }

  result.total = footprint(p, result.offsets);
  // An unsettled component does not matter if it already fits under what
  // the settled ones (or the clique bound) force anyway.
  result.provedOptimal =
      result.total == result.lowerBound ||
      std::all_of(unsettled.begin(), unsettled.end(),
                  [&](uint64_t end) { return end <= target; });
  assert(isValidPacking(p, result.offsets) && "packing must be valid");
  return result;
}

} // namespace smem
} // namespace ext