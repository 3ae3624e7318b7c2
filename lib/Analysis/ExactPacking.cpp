//===- ExactPacking.cpp - branch and bound for shared-memory packing ------===//
//
// The exact search behind packBuffers(): for one interference component of
// at most 64 buffers, an optimal packing among "gravity" packings, with the
// pruning rules and bounds documented on ExactSearch::Impl below.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryPackingGraph.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace ext {
namespace smem {
namespace detail {

namespace {

//===----------------------------------------------------------------------===//
// Exact search
//===----------------------------------------------------------------------===//

/// A set of search states (word strings) with a memory cap: once full it
/// stops remembering, which only costs pruning, never soundness. Keys are
/// stored and compared in full; the hash only picks the slot.
class StateSet {
public:
  bool contains(const std::vector<uint64_t> &key, uint64_t hash) const {
    if (slots.empty())
      return false;
    for (size_t s = hash & (slots.size() - 1);;
         s = (s + 1) & (slots.size() - 1)) {
      if (!slots[s])
        return false;
      if (matches(slots[s] - 1, key, hash))
        return true;
    }
  }

  void insert(const std::vector<uint64_t> &key, uint64_t hash) {
    if (arena.size() + key.size() + 2 > kMaxWords)
      return;
    if (2 * (count + 1) > slots.size())
      grow();
    size_t at = arena.size();
    arena.push_back(hash);
    arena.push_back(key.size());
    arena.insert(arena.end(), key.begin(), key.end());
    place(at);
    ++count;
  }

private:
  // 4 Mi words (32 MiB) of keys at most.
  static constexpr size_t kMaxWords = size_t(1) << 22;

  bool matches(size_t at, const std::vector<uint64_t> &key,
               uint64_t hash) const {
    return arena[at] == hash && arena[at + 1] == key.size() &&
           std::equal(key.begin(), key.end(), arena.begin() + at + 2);
  }

  void place(size_t at) {
    size_t s = arena[at] & (slots.size() - 1);
    while (slots[s])
      s = (s + 1) & (slots.size() - 1);
    slots[s] = at + 1;
  }

  void grow() {
    slots.assign(std::max<size_t>(1024, 2 * slots.size()), 0);
    for (size_t at = 0; at < arena.size(); at += 2 + arena[at + 1])
      place(at);
  }

  std::vector<uint64_t> arena; // hash, length, words; key after key
  std::vector<uint64_t> slots; // 1 + arena position, 0 when free
  size_t count = 0;
};

} // namespace

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
/// interfering j listed before it. The search builds such lists: it appends
/// buffer i at an offset c free of placed interfering buffers, with (c, i)
/// lexicographically after the last (offset, index) appended (the "sweep
/// line"), and c in {alignUp(lastOffset, a_i)} u {alignUp(end_j, a_i) : j
/// placed, interfering with i, end_j > lastOffset}. That holds every
/// candidate of the argument not below the sweep line (an alignUp(end_j, a_i)
/// with end_j <= lastOffset that is not below it equals
/// alignUp(lastOffset, a_i)), and the one extra candidate keeps the children
/// independent of what lies below the sweep line. Every gravity packing is
/// such a list, so the optimum is among the leaves.
///
/// Pruning keeps at least one optimal gravity packing's list:
///  - No hole left behind: when i goes to c, all unplaced buffers end up at
///    >= c. An unplaced k (or i itself) with an aligned slot p, p + s_k <= c,
///    free of placed interfering buffers would fall into it (nothing at >= c
///    can block it), so every unplaced k needs firstFit_k + s_k > c.
///  - Interchangeable buffers (same size, alignment and interference with
///    everyone else) are listed in index order: relabelling them in any
///    packing keeps it valid, gravity-settled and equally large.
///  - Bounds (only ever cut leaves no better than the incumbent): the current
///    maximum end; each unplaced k ends at or above its first free slot in
///    list order; the unplaced buffers not below the t-th lowest such slot
///    need that slot plus their heaviest clique; and the unplaced members of a
///    clique form an aligned chain above the sweep line (ChainClique).
///  - Memoisation: a node whose subtree is the same as that of a node already
///    searched is skipped (see memoKey()).
///  - The search stops once the incumbent reaches a known lower bound.
class ExactSearch::Impl {
public:
  Impl(const Graph &g, const std::vector<size_t> &members)
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

    buildChainBounds();

    offset.assign(n, 0);
    sequence.assign(n, 0);
    children.resize(n + 1);
    lowestFree.assign(n, 0);
    sweepFree.resize(n);
    keys.resize(n + 1);
  }

  /// A lower bound on this component's footprint: its heaviest clique, or
  /// more where alignment forces padding inside a clique.
  uint64_t lowerBound() const { return rootBound; }

  /// Good starting orders: each padded clique in its best chain order
  /// (local indices). Placed first, they often give the optimum of dense
  /// problems, where sorting by size pads badly.
  std::vector<std::vector<unsigned>> seedOrders() const {
    std::vector<std::vector<unsigned>> orders;
    for (const ChainClique &chain : chains)
      orders.push_back(chainOrder(chain));
    return orders;
  }

  /// Looks for a packing below `best` (whose offsets are in `bestOffsets`,
  /// local order), stopping at `stopAt`. Returns true when the search space
  /// was exhausted or the target met, false when `maxNodes` ran out.
  bool run(uint64_t stopAt, uint64_t maxNodes, uint64_t &best,
           std::vector<uint64_t> &bestOffsets, uint64_t &nodes) {
    target = stopAt;
    budget = maxNodes;
    incumbent = best;
    incumbentOffsets = bestOffsets;
    explored = 0;
    aborted = reachedTarget = false;
    // What was searched under a lower incumbent says nothing now.
    visited = StateSet();
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

  /// Buffers of a clique are disjoint, so they form a chain, each at or
  /// above the aligned end of the one below. minEnd[r << m | S] is the least
  /// end of a chain of the subset S of the m `members` that starts at offset
  /// r (subset DP: the chain of S ends with some i, on top of the best chain
  /// of S - i; lower ends never hurt what comes above). Only r = 0 is tabled
  /// at first; hard searches add every r below `largestAlign` (refine()).
  struct ChainClique {
    std::vector<unsigned> members;
    uint64_t largestAlign = 1;
    uint64_t residues = 0;
    std::vector<uint64_t> minEnd;
  };

  void fillChain(ChainClique &chain, uint64_t start) const {
    size_t m = chain.members.size();
    uint64_t *table = chain.minEnd.data() + (start << m);
    table[0] = start;
    for (uint64_t sub = 1; sub < (uint64_t(1) << m); ++sub) {
      uint64_t least = kNoBound;
      for (uint64_t rest = sub; rest; rest &= rest - 1) {
        unsigned t = lowestBit(rest);
        unsigned k = chain.members[t];
        least =
            std::min(least, alignUp(table[sub & ~bit(t)], align[k]) + size[k]);
      }
      table[sub] = least;
    }
  }

  /// Least end of a chain of the members in `sub` that all start at or above
  /// `start`. Shifting a chain by a multiple of the largest alignment in it
  /// keeps it aligned, so the table for a residue (or for 0, rounding start
  /// down) answers for any start.
  uint64_t chainEnd(const ChainClique &chain, uint64_t sub, uint64_t start,
                    uint64_t largest) const {
    size_t m = chain.members.size();
    if (chain.residues > 1) {
      uint64_t base = start & ~(chain.largestAlign - 1);
      return base + chain.minEnd[(start - base) << m | sub];
    }
    return (start & ~(largest - 1)) + chain.minEnd[sub];
  }

  /// The DP's best order of the whole clique, lowest first.
  std::vector<unsigned> chainOrder(const ChainClique &chain) const {
    size_t m = chain.members.size();
    std::vector<unsigned> order;
    for (uint64_t sub = (uint64_t(1) << m) - 1; sub;) {
      for (uint64_t rest = sub; rest; rest &= rest - 1) {
        unsigned t = lowestBit(rest);
        unsigned k = chain.members[t];
        if (alignUp(chain.minEnd[sub & ~bit(t)], align[k]) + size[k] ==
            chain.minEnd[sub]) {
          order.push_back(k);
          sub &= ~bit(t);
          break;
        }
      }
    }
    std::reverse(order.begin(), order.end());
    return order;
  }

  /// Tables every start residue, for as many chains as 2^21 entries allow.
  void refine() {
    refined = true;
    uint64_t entries = 0;
    for (ChainClique &chain : chains) {
      size_t m = chain.members.size();
      uint64_t need = chain.largestAlign << m;
      if (chain.largestAlign > 64 || entries + need > (uint64_t(1) << 21))
        continue;
      entries += need;
      chain.minEnd.resize(need);
      for (uint64_t r = 1; r < chain.largestAlign; ++r)
        fillChain(chain, r);
      chain.residues = chain.largestAlign;
    }
  }

  /// Maximal cliques (Bron-Kerbosch with pivoting), at most `cap` of them.
  void maximalCliques(uint64_t r, uint64_t p, uint64_t x,
                      std::vector<uint64_t> &out, size_t cap) const {
    if (!p && !x) {
      out.push_back(r);
      return;
    }
    unsigned pivot = lowestBit(p | x);
    int pivotDegree = -1;
    for (uint64_t m = p | x; m; m &= m - 1) {
      unsigned u = lowestBit(m);
      int degree = __builtin_popcountll(p & adj[u]);
      if (degree > pivotDegree) {
        pivot = u;
        pivotDegree = degree;
      }
    }
    for (uint64_t m = p & ~adj[pivot]; m && out.size() < cap; m &= m - 1) {
      unsigned v = lowestBit(m);
      maximalCliques(r | bit(v), p & adj[v], x & adj[v], out, cap);
      p &= ~bit(v);
      x |= bit(v);
    }
  }

  /// The heaviest clique by size ignores padding, which dominates dense
  /// problems with odd sizes. For the maximal cliques where padding can
  /// occur, the chain DP gives the exact least footprint of the clique alone;
  /// the tables also bound the search nodes (see search()).
  void buildChainBounds() {
    rootBound =
        cliqueOf.empty() ? CliqueSolver(size, adj).solve() : cliqueOf[all];
    std::vector<uint64_t> cliques;
    maximalCliques(0, all, 0, cliques, /*cap=*/256);
    struct Candidate {
      uint64_t weight;
      std::vector<unsigned> members;
    };
    std::vector<Candidate> padded;
    for (uint64_t q : cliques) {
      std::vector<unsigned> members;
      for (uint64_t m = q; m; m &= m - 1)
        members.push_back(lowestBit(m));
      if (members.size() < 2)
        continue;
      // Keep the 16 heaviest members: a sub-clique still bounds.
      std::sort(members.begin(), members.end(), [&](unsigned a, unsigned b) {
        if (size[a] != size[b])
          return size[a] > size[b];
        return a < b;
      });
      if (members.size() > 16)
        members.resize(16);
      // By decreasing alignment a chain needs no padding at all when every
      // size is a multiple of the next alignment; then the DP can only
      // return the plain weight.
      std::vector<unsigned> byAlign = members;
      std::stable_sort(
          byAlign.begin(), byAlign.end(),
          [&](unsigned a, unsigned b) { return align[a] > align[b]; });
      uint64_t weight = 0, end = 0;
      for (unsigned k : byAlign) {
        weight += size[k];
        end = alignUp(end, align[k]) + size[k];
      }
      if (end > weight)
        padded.push_back({weight, std::move(members)});
    }
    std::stable_sort(padded.begin(), padded.end(),
                     [](const Candidate &a, const Candidate &b) {
                       return a.weight > b.weight;
                     });
    // Bounded preprocessing: the DP costs |Q| 2^|Q| steps per clique.
    uint64_t work = 0;
    for (Candidate &c : padded) {
      size_t m = c.members.size();
      if (chains.size() >= 8 || work + (m << m) > (uint64_t(1) << 22))
        break;
      work += m << m;
      ChainClique chain;
      chain.members = std::move(c.members);
      for (unsigned k : chain.members)
        chain.largestAlign = std::max(chain.largestAlign, align[k]);
      chain.residues = 1;
      chain.minEnd.assign(size_t(1) << m, 0);
      fillChain(chain, 0);
      rootBound = std::max(rootBound, chain.minEnd.back());
      chains.push_back(std::move(chain));
    }
  }

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
    if (++explored == kRefineAfter && !refined)
      refine();

    uint64_t unplaced = all & ~placed;
    // Per unplaced k: its lowest free slot (for the no-hole rule and the
    // memo key) and its lowest free slot in the list order (for the bound).
    uint64_t limit = kNoBound, bound = maxEnd;
    unsigned count = 0;
    for (uint64_t m = unplaced; m; m &= m - 1) {
      unsigned k = lowestBit(m);
      uint64_t lowest = firstFit(k, 0, depth);
      lowestFree[k] = lowest;
      limit = std::min(limit, lowest + size[k]);
      uint64_t from =
          static_cast<int>(k) < lastIndex ? lastOffset + 1 : lastOffset;
      if (lowest < from)
        lowest = firstFit(k, alignUp(from, align[k]), depth);
      bound = std::max(bound, lowest + size[k]);
      sweepFree[count++] = {lowest, k};
    }
    if (bound >= incumbent)
      return;
    // Everything in `unplaced` lies above the sweep line, and everything
    // still to go from the t-th lowest sweepFree on lies above that one.
    uint64_t restClique = 0;
    if (!cliqueOf.empty()) {
      restClique = cliqueOf[unplaced];
      std::sort(sweepFree.begin(), sweepFree.begin() + count);
      uint64_t above = unplaced;
      for (unsigned t = 0; t < count; ++t) {
        if (sweepFree[t].first + cliqueOf[above] >= incumbent)
          return;
        above &= ~bit(sweepFree[t].second);
      }
    }
    // The unplaced members of a clique chain up above the sweep line and
    // above its placed members; shifting that chain down by a multiple of
    // their largest alignment keeps it aligned, so minEnd applies.
    for (const ChainClique &chain : chains) {
      uint64_t sub = 0, start = lastOffset, largest = 1;
      for (size_t t = 0; t < chain.members.size(); ++t) {
        unsigned k = chain.members[t];
        if (unplaced & bit(k)) {
          sub |= bit(static_cast<unsigned>(t));
          largest = std::max(largest, align[k]);
        } else {
          start = std::max(start, offset[k] + size[k]);
        }
      }
      if (sub && chainEnd(chain, sub, start, largest) >= incumbent)
        return;
    }

    // Different lists often reach the same state; see memoKey().
    bool memoize = depth >= 2 && count >= 2;
    uint64_t hash = 0;
    std::vector<uint64_t> &key = keys[depth];
    if (memoize) {
      hash = memoKey(unplaced, lastOffset, lastIndex, depth, key);
      if (visited.contains(key, hash))
        return;
    }

    std::vector<Child> &kids = children[depth];
    kids.clear();
    for (uint64_t m = unplaced; m; m &= m - 1) {
      unsigned i = lowestBit(m);
      if (samePred[i] & unplaced)
        continue;
      auto consider = [&](uint64_t at) {
        if (at == lastOffset && static_cast<int>(i) < lastIndex)
          return true;
        if (at >= limit)
          return false;
        uint64_t childBound = std::max({maxEnd, at + size[i], at + restClique});
        if (childBound < incumbent)
          kids.push_back({at, i, childBound});
        return true;
      };
      // Candidates at or above the sweep line: the aligned starts of the
      // gaps between i's placed interfering buffers (a gap reaching below
      // the sweep line starts at it). This is the candidate set of the
      // completeness argument plus possibly alignUp(lastOffset), so that the
      // children depend on nothing below the sweep line.
      uint64_t cursor = lastOffset;
      bool more = true;
      for (unsigned t = 0; t < depth && more; ++t) {
        unsigned j = sequence[t];
        if (!(adj[i] & bit(j)) || offset[j] + size[j] <= cursor)
          continue;
        if (offset[j] > cursor) {
          uint64_t at = alignUp(cursor, align[i]);
          if (at + size[i] <= offset[j])
            more = consider(at);
        }
        cursor = offset[j] + size[j];
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
      search(placed | bit(kid.buffer), kid.offset, static_cast<int>(kid.buffer),
             std::max(maxEnd, kid.offset + size[kid.buffer]), depth + 1);
      if (aborted || reachedTarget)
        return;
    }
    if (memoize)
      visited.insert(key, hash);
  }

  /// Everything a node's subtree depends on, into `key`; returns its hash.
  /// Placed buffers ending at or below the sweep line can no longer meet a
  /// child (all of which start at or above it) except through the holes
  /// they leave, and the no-hole rule has already ruled out every hole that
  /// lies wholly below the sweep line. What is left: the unplaced set, the
  /// sweep position and last index, the placed buffers reaching above the
  /// sweep line ("frontier") with their offsets, and for each unplaced k the
  /// lowest free slot if it straddles the sweep line (the other straddling
  /// slots are then exactly the aligned offsets above it that the frontier
  /// leaves free). Two nodes with equal keys have identical subtrees, so once
  /// one has been searched the other cannot beat the incumbent.
  uint64_t memoKey(uint64_t unplaced, uint64_t lastOffset, int lastIndex,
                   unsigned depth, std::vector<uint64_t> &key) const {
    key.clear();
    key.push_back(unplaced);
    key.push_back(lastOffset);
    key.push_back(static_cast<uint64_t>(lastIndex));
    for (unsigned t = 0; t < depth; ++t) {
      unsigned j = sequence[t];
      if (offset[j] + size[j] > lastOffset) {
        key.push_back(j);
        key.push_back(offset[j]);
      }
    }
    for (uint64_t m = unplaced; m; m &= m - 1) {
      unsigned k = lowestBit(m);
      key.push_back(lowestFree[k] < lastOffset ? lowestFree[k] : kNoBound);
    }
    uint64_t hash = 0x9e3779b97f4a7c15ull;
    for (uint64_t word : key) {
      hash ^= word + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
      hash *= 0xff51afd7ed558ccdull;
    }
    return hash ^ (hash >> 29);
  }

  unsigned n;
  uint64_t all;
  std::vector<uint64_t> size, align, adj, samePred, cliqueOf;
  std::vector<ChainClique> chains;
  uint64_t rootBound = 0;
  bool refined = false;
  /// Nodes after which a search counts as hard enough to pay for refine().
  static constexpr uint64_t kRefineAfter = 20000;

  std::vector<uint64_t> offset;
  std::vector<unsigned> sequence;
  std::vector<std::vector<Child>> children;
  std::vector<uint64_t> lowestFree;
  std::vector<std::pair<uint64_t, unsigned>> sweepFree;
  std::vector<std::vector<uint64_t>> keys;
  StateSet visited;

  uint64_t target = 0, budget = 0, explored = 0, incumbent = kNoBound;
  std::vector<uint64_t> incumbentOffsets;
  bool aborted = false, reachedTarget = false;
};

ExactSearch::ExactSearch(const Graph &g, const std::vector<size_t> &members)
    : impl(std::make_unique<Impl>(g, members)) {}

ExactSearch::~ExactSearch() = default;

uint64_t ExactSearch::lowerBound() const { return impl->lowerBound(); }

std::vector<std::vector<unsigned>> ExactSearch::seedOrders() const {
  return impl->seedOrders();
}

bool ExactSearch::run(uint64_t stopAt, uint64_t maxNodes, uint64_t &best,
                      std::vector<uint64_t> &bestOffsets, uint64_t &nodes) {
  return impl->run(stopAt, maxNodes, best, bestOffsets, nodes);
}

} // namespace detail
} // namespace smem
} // namespace ext
