//===- SharedMemoryPacking.cpp - pack shared-memory buffers ---------------===//
//
// Dynamic storage allocation (DSA) is NP-hard, but the problems a kernel hands
// us are small: up to a few dozen shared-memory buffers. We therefore solve
// them exactly when there are few buffers (branch and bound, below) and fall
// back to best-fit decreasing otherwise. Everything here is standard C++17 and
// uses neither exceptions nor RTTI, so it builds with LLVM's flags.
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/SharedMemoryPacking.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <utility>

namespace ext {
namespace smem {

bool PackingProblem::interfere(size_t a, size_t b) const {
  if (a == b)
    return false;
  auto at = [&](size_t r, size_t c) {
    return r < interferes.size() && c < interferes[r].size() && interferes[r][c];
  };
  return at(a, b) || at(b, a);
}

namespace {

constexpr uint64_t kNoBound = std::numeric_limits<uint64_t>::max();

uint64_t alignmentOf(const PackingBuffer &b) {
  return b.alignment ? b.alignment : 1;
}

/// Rounds `v` up to a multiple of the power of two `a`.
uint64_t alignUp(uint64_t v, uint64_t a) {
  assert(a != 0 && (a & (a - 1)) == 0 && "alignment must be a power of two");
  return (v + a - 1) & ~(a - 1);
}

unsigned lowestBit(uint64_t mask) {
  assert(mask != 0);
  return static_cast<unsigned>(__builtin_ctzll(mask));
}

uint64_t bit(unsigned i) { return uint64_t(1) << i; }

/// The problem read once into flat arrays. The interference matrix is
/// symmetrised, and buffers of size 0 get no edges: they occupy no bytes, so
/// they cannot conflict with anything.
struct Graph {
  size_t n = 0;
  std::vector<uint64_t> size, align;
  std::vector<char> adjMatrix;
  std::vector<std::vector<size_t>> adj;

  explicit Graph(const PackingProblem &p) : n(p.buffers.size()) {
    size.resize(n);
    align.resize(n);
    for (size_t i = 0; i < n; ++i) {
      size[i] = p.buffers[i].size;
      align[i] = alignmentOf(p.buffers[i]);
    }
    adjMatrix.assign(n * n, 0);
    adj.resize(n);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b)
        if (size[a] && size[b] && p.interfere(a, b)) {
          adjMatrix[a * n + b] = adjMatrix[b * n + a] = 1;
          adj[a].push_back(b);
          adj[b].push_back(a);
        }
  }

  bool edge(size_t a, size_t b) const { return adjMatrix[a * n + b]; }

  bool hasEdges() const {
    for (const auto &row : adj)
      if (!row.empty())
        return true;
    return false;
  }

  /// Connected components, each listed by increasing buffer index.
  std::vector<std::vector<size_t>> components() const {
    std::vector<std::vector<size_t>> comps;
    std::vector<char> seen(n, 0);
    for (size_t s = 0; s < n; ++s) {
      if (seen[s])
        continue;
      std::vector<size_t> comp{s};
      seen[s] = 1;
      for (size_t q = 0; q < comp.size(); ++q)
        for (size_t v : adj[comp[q]])
          if (!seen[v]) {
            seen[v] = 1;
            comp.push_back(v);
          }
      std::sort(comp.begin(), comp.end());
      comps.push_back(std::move(comp));
    }
    return comps;
  }

  /// For a component of at most 64 buffers: local adjacency masks, bit k of
  /// masks[i] meaning members[i] and members[k] interfere.
  std::vector<uint64_t> localMasks(const std::vector<size_t> &members) const {
    assert(members.size() <= 64);
    std::vector<uint64_t> masks(members.size(), 0);
    for (size_t i = 0; i < members.size(); ++i)
      for (size_t k = 0; k < members.size(); ++k)
        if (edge(members[i], members[k]))
          masks[i] |= bit(static_cast<unsigned>(k));
    return masks;
  }
};

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

std::vector<size_t> bestFitOrder(const Graph &g,
                                 std::vector<size_t> members) {
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
  std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    return g.align[a] > g.align[b];
  });
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

//===----------------------------------------------------------------------===//
// Maximum-weight clique
//===----------------------------------------------------------------------===//

/// Östergård's algorithm on at most 64 vertices: for i = n-1 down to 0,
/// search the cliques whose lowest vertex is i; best[i] (the heaviest clique
/// within {i..n-1}) then bounds every later branch that picks i next.
class CliqueSolver {
public:
  CliqueSolver(std::vector<uint64_t> weight, std::vector<uint64_t> adj)
      : weight(std::move(weight)), adj(std::move(adj)) {}

  uint64_t solve() {
    size_t n = weight.size();
    bestWithin.assign(n + 1, 0);
    best = 0;
    for (size_t i = n; i-- > 0;) {
      uint64_t above = i + 1 >= 64 ? 0 : ~uint64_t(0) << (i + 1);
      expand(adj[i] & above, weight[i]);
      bestWithin[i] = best;
    }
    return best;
  }

private:
  uint64_t massOf(uint64_t mask) const {
    uint64_t sum = 0;
    for (; mask; mask &= mask - 1)
      sum += weight[lowestBit(mask)];
    return sum;
  }

  void expand(uint64_t candidates, uint64_t w) {
    best = std::max(best, w);
    while (candidates) {
      if (w + massOf(candidates) <= best)
        return;
      unsigned j = lowestBit(candidates);
      // Later candidates are higher still, and bestWithin only shrinks.
      if (w + bestWithin[j] <= best)
        return;
      candidates &= candidates - 1;
      expand(candidates & adj[j], w + weight[j]);
    }
  }

  std::vector<uint64_t> weight, adj, bestWithin;
  uint64_t best = 0;
};

/// Heaviest clique of one component: exact up to 64 vertices; above that a
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
      if (v != seed &&
          std::all_of(clique.begin(), clique.end(),
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

//===----------------------------------------------------------------------===//
// Exact search
//===----------------------------------------------------------------------===//

/// Branch and bound for one interference component of at most 64 buffers.
///
/// Completeness. Take any optimal packing and let buffers fall ("gravity"):
/// while some buffer has a lower aligned offset free of all its interfering
/// buffers, move it to the lowest one. The sum of offsets drops each time, so
/// this ends, and the footprint never grows. In the result every buffer i with
/// o_i > 0 has o_i - a_i blocked by an interfering j that does not overlap i
/// at o_i; that forces o_i - a_i < end_j <= o_i, i.e.
/// o_i = alignUp(end_j, a_i), and o_j < end_j <= o_i. So listing the buffers
/// by (offset, index), each one sits at 0 or at alignUp(end_j, a_i) of an
/// interfering j listed before it. The search builds exactly such lists: it
/// appends buffer i at a candidate c in {0} u {alignUp(end_j, a_i) : j placed
/// and interfering with i} that overlaps no placed interfering buffer, with
/// (c, i) lexicographically after the last appended (offset, index). Every
/// gravity packing is one such list, so the optimum is among the leaves.
///
/// Pruning, each a property every gravity packing's list has:
///  - No hole left behind: when i goes to c, all unplaced buffers end up at
///    >= c. An unplaced k (or i itself) with an aligned slot p, p + s_k <= c,
///    free of placed interfering buffers would fall into it (nothing at >= c
///    can block it), so every unplaced k needs firstFit_k + s_k > c.
///  - Bounds: the current maximum end; each unplaced k ends at or above its
///    first free slot at or after the sweep line; and all unplaced buffers lie
///    above c, so c plus their heaviest clique is needed.
///  - Interchangeable buffers (same size, alignment and interference with
///    everyone else) are placed in index order: relabelling them in any
///    packing keeps it valid, gravity-settled and equally large.
///  - Stop once the incumbent reaches a known lower bound on the answer.
class ExactSearch {
public:
  ExactSearch(const Graph &g, const std::vector<size_t> &members)
      : n(static_cast<unsigned>(members.size())) {
    assert(n >= 1 && n <= 64);
    size.resize(n);
    align.resize(n);
    for (unsigned i = 0; i < n; ++i) {
      size[i] = g.size[members[i]];
      align[i] = g.align[members[i]];
    }
    adj = g.localMasks(members);
    all = n == 64 ? ~uint64_t(0) : bit(n) - 1;

    samePred.assign(n, 0);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned k = 0; k < i; ++k) {
        uint64_t others = ~(bit(i) | bit(k));
        if (size[i] == size[k] && align[i] == align[k] &&
            (adj[i] & others) == (adj[k] & others))
          samePred[i] |= bit(k);
      }

    // Heaviest clique of every subset, when the table stays small (8 MiB).
    if (n <= 20) {
      cliqueOf.assign(size_t(1) << n, 0);
      for (uint64_t mask = 1; mask < (uint64_t(1) << n); ++mask) {
        unsigned v = lowestBit(mask);
        uint64_t rest = mask & (mask - 1);
        cliqueOf[mask] =
            std::max(cliqueOf[rest], size[v] + cliqueOf[rest & adj[v]]);
      }
    }

    offset.assign(n, 0);
    sequence.assign(n, 0);
    children.resize(n + 1);
  }

  /// Looks for a packing below `best` (whose offsets are in `bestOffsets`,
  /// local order), stopping at `target`. Returns true when the search space
  /// was exhausted or the target met, false when `budget` nodes ran out.
  bool run(uint64_t target, uint64_t budget, uint64_t &best,
           std::vector<uint64_t> &bestOffsets, uint64_t &nodes) {
    this->target = target;
    this->budget = budget;
    incumbent = best;
    incumbentOffsets = bestOffsets;
    explored = 0;
    aborted = reachedTarget = false;
    if (incumbent > target)
      search(/*placed=*/0, /*lastOffset=*/0, /*lastIndex=*/-1, /*maxEnd=*/0,
             /*depth=*/0);
    best = incumbent;
    bestOffsets = incumbentOffsets;
    nodes = explored;
    return !aborted;
  }

private:
  struct Child {
    uint64_t offset;
    unsigned buffer;
    uint64_t bound;
  };

  /// Lowest aligned offset >= `from` (aligned) where k overlaps no placed
  /// interfering buffer. Placed buffers are kept sorted by offset, so one
  /// pass suffices.
  uint64_t firstFit(unsigned k, uint64_t from, unsigned placedCount) const {
    uint64_t at = from;
    for (unsigned t = 0; t < placedCount; ++t) {
      unsigned j = sequence[t];
      if (!(adj[k] & bit(j)))
        continue;
      if (offset[j] >= at + size[k])
        break;
      if (offset[j] + size[j] > at)
        at = alignUp(offset[j] + size[j], align[k]);
    }
    return at;
  }

  void search(uint64_t placed, uint64_t lastOffset, int lastIndex,
              uint64_t maxEnd, unsigned depth) {
    if (placed == all) {
      if (maxEnd < incumbent) {
        incumbent = maxEnd;
        incumbentOffsets = offset;
        reachedTarget = incumbent <= target;
      }
      return;
    }
    if (explored >= budget) {
      aborted = true;
      return;
    }
    ++explored;

    uint64_t unplaced = all & ~placed;
    uint64_t limit = kNoBound, bound = maxEnd;
    for (uint64_t m = unplaced; m; m &= m - 1) {
      unsigned k = lowestBit(m);
      uint64_t lowest = firstFit(k, 0, depth);
      limit = std::min(limit, lowest + size[k]);
      // k is listed after (lastOffset, lastIndex).
      uint64_t from = static_cast<int>(k) < lastIndex ? lastOffset + 1
                                                      : lastOffset;
      if (lowest < from)
        lowest = firstFit(k, alignUp(from, align[k]), depth);
      bound = std::max(bound, lowest + size[k]);
    }
    uint64_t restClique = cliqueOf.empty() ? 0 : cliqueOf[unplaced];
    if (bound >= incumbent || lastOffset + restClique >= incumbent)
      return;

    std::vector<Child> &kids = children[depth];
    kids.clear();
    for (uint64_t m = unplaced; m; m &= m - 1) {
      unsigned i = lowestBit(m);
      if (samePred[i] & unplaced)
        continue;
      auto consider = [&](uint64_t at) {
        if (at < lastOffset ||
            (at == lastOffset && static_cast<int>(i) < lastIndex))
          return true;
        if (at >= limit)
          return false;
        uint64_t childBound =
            std::max({maxEnd, at + size[i], at + restClique});
        if (childBound < incumbent)
          kids.push_back({at, i, childBound});
        return true;
      };
      // The free candidates are the aligned starts of the gaps between i's
      // placed interfering buffers (see firstFit), in increasing order.
      uint64_t cursor = 0;
      bool more = true;
      for (unsigned t = 0; t < depth && more; ++t) {
        unsigned j = sequence[t];
        if (!(adj[i] & bit(j)))
          continue;
        if (offset[j] > cursor) {
          uint64_t at = alignUp(cursor, align[i]);
          if (at + size[i] <= offset[j])
            more = consider(at);
        }
        cursor = std::max(cursor, offset[j] + size[j]);
      }
      if (more)
        consider(alignUp(cursor, align[i]));
    }
    // Low offsets first (that is where gravity packings put things), larger
    // buffers first among equals.
    std::sort(kids.begin(), kids.end(), [&](const Child &a, const Child &b) {
      if (a.offset != b.offset)
        return a.offset < b.offset;
      if (size[a.buffer] != size[b.buffer])
        return size[a.buffer] > size[b.buffer];
      return a.buffer < b.buffer;
    });

    for (size_t c = 0; c < kids.size(); ++c) {
      Child kid = kids[c];
      if (kid.bound >= incumbent)
        continue;
      offset[kid.buffer] = kid.offset;
      sequence[depth] = kid.buffer;
      search(placed | bit(kid.buffer), kid.offset,
             static_cast<int>(kid.buffer),
             std::max(maxEnd, kid.offset + size[kid.buffer]), depth + 1);
      if (aborted || reachedTarget)
        return;
    }
  }

  unsigned n;
  uint64_t all;
  std::vector<uint64_t> size, align, adj, samePred, cliqueOf;

  std::vector<uint64_t> offset;
  std::vector<unsigned> sequence;
  std::vector<std::vector<Child>> children;

  uint64_t target = 0, budget = 0, explored = 0, incumbent = kNoBound;
  std::vector<uint64_t> incumbentOffsets;
  bool aborted = false, reachedTarget = false;
};

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

PackingResult packBuffers(const PackingProblem &p,
                          const PackingOptions &opts) {
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

  if (g.n > opts.exactLimit) {
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
  // so they are solved one by one. Heaviest clique first: a component proved
  // optimal raises the bar, and the later ones only need to get under it.
  std::vector<uint64_t> compBound;
  for (const auto &comp : comps)
    compBound.push_back(componentClique(g, comp));
  std::vector<size_t> compOrder(comps.size());
  std::iota(compOrder.begin(), compOrder.end(), 0);
  std::stable_sort(compOrder.begin(), compOrder.end(),
                   [&](size_t a, size_t b) {
                     return compBound[a] > compBound[b];
                   });

  uint64_t target = result.lowerBound;
  uint64_t budgetLeft = opts.nodeBudget;
  // Components the search could not settle, with what they reached.
  std::vector<uint64_t> unsettled;
  std::vector<uint64_t> trial(g.n, 0);
  for (size_t c : compOrder) {
    const std::vector<size_t> &comp = comps[c];
    if (comp.size() == 1)
      continue; // offset 0

    // Seed with the best of a few greedy packings.
    auto keep = [&](std::vector<uint64_t> &into, uint64_t &bestEnd) {
      uint64_t end = footprintOf(g, comp, trial);
      if (end < bestEnd) {
        bestEnd = end;
        for (size_t i : comp)
          into[i] = trial[i];
      }
    };
    uint64_t seedEnd = kNoBound;
    std::vector<uint64_t> seed(g.n, 0);
    std::vector<size_t> bySize = bestFitOrder(g, comp);
    std::vector<size_t> byAlign = bySize;
    std::stable_sort(byAlign.begin(), byAlign.end(), [&](size_t a, size_t b) {
      return g.align[a] > g.align[b];
    });
    for (const auto *order : {&bySize, &byAlign})
      for (bool fit : {true, false}) {
        placeGreedy(g, *order, fit, trial);
        keep(seed, seedEnd);
      }
    placeEndToEnd(g, comp, trial);
    keep(seed, seedEnd);

    if (comp.size() > 64) {
      for (size_t i : comp)
        result.offsets[i] = seed[i];
      unsettled.push_back(seedEnd);
      continue;
    }

    ExactSearch search(g, comp);
    std::vector<uint64_t> local;
    for (size_t i : comp)
      local.push_back(seed[i]);
    uint64_t best = seedEnd, nodes = 0;
    bool settled = search.run(target, budgetLeft, best, local, nodes);
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
