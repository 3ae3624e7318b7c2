//===- SharedMemoryPackingGraph.h - internals of the packer -----*- C++ -*-===//
//
// What SharedMemoryPacking.cpp (greedy placements, clique bounds, the driver)
// and ExactPacking.cpp (the branch and bound) share: the problem as a graph,
// bit and alignment helpers, the clique solver, and the exact search's
// interface. Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_ANALYSIS_SHAREDMEMORYPACKINGGRAPH_H
#define EXT_LIB_ANALYSIS_SHAREDMEMORYPACKINGGRAPH_H

#include "ext/Analysis/SharedMemoryPacking.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace ext {
namespace smem {
namespace detail {

inline constexpr uint64_t kNoBound = std::numeric_limits<uint64_t>::max();

inline uint64_t alignmentOf(const PackingBuffer &b) {
  return b.alignment ? b.alignment : 1;
}

/// Rounds `v` up to a multiple of the power of two `a`.
inline uint64_t alignUp(uint64_t v, uint64_t a) {
  assert(a != 0 && (a & (a - 1)) == 0 && "alignment must be a power of two");
  return (v + a - 1) & ~(a - 1);
}

inline unsigned lowestBit(uint64_t mask) {
  assert(mask != 0);
  return static_cast<unsigned>(__builtin_ctzll(mask));
}

inline uint64_t bit(unsigned i) { return uint64_t(1) << i; }

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

/// Branch and bound for one interference component of at most 64 buffers
/// (ExactPacking.cpp, where its completeness argument and pruning rules are
/// written down).
class ExactSearch {
public:
  ExactSearch(const Graph &g, const std::vector<size_t> &members);
  ~ExactSearch();

  /// A lower bound on this component's footprint: its heaviest clique, or
  /// more where alignment forces padding inside a clique.
  uint64_t lowerBound() const;

  /// Good starting orders: each padded clique in its best chain order
  /// (local indices).
  std::vector<std::vector<unsigned>> seedOrders() const;

  /// Looks for a packing below `best` (whose offsets are in `bestOffsets`,
  /// local order), stopping at `stopAt`. Returns true when the search space
  /// was exhausted or the target met, false when `maxNodes` ran out.
  bool run(uint64_t stopAt, uint64_t maxNodes, uint64_t &best,
           std::vector<uint64_t> &bestOffsets, uint64_t &nodes);

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace detail
} // namespace smem
} // namespace ext

#endif // EXT_LIB_ANALYSIS_SHAREDMEMORYPACKINGGRAPH_H
