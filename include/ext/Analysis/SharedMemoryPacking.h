//===- SharedMemoryPacking.h - pack shared-memory buffers -------*- C++ -*-===//
//
// Dynamic storage allocation for GPU shared memory: every buffer gets a byte
// offset so that buffers live at the same time never share bytes, and the
// footprint (the highest end) is as small as we can make it. Small problems
// are solved exactly by a branch and bound; larger ones by best-fit decreasing.
//
// Plain C++17, no MLIR/LLVM dependency, so the algorithm can be tested and
// benchmarked on its own; the pass that builds problems from IR lives
// elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_ANALYSIS_SHAREDMEMORYPACKING_H
#define EXT_ANALYSIS_SHAREDMEMORYPACKING_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ext {
namespace smem {

/// One buffer to place: `size` bytes (> 0) at an offset that is a multiple of
/// `alignment` (a power of two; 0 is read as 1). A size of 0 is tolerated: the
/// buffer occupies no bytes and is put at offset 0.
struct PackingBuffer {
  uint64_t size;
  uint64_t alignment;
};

/// Buffers plus the interference relation: two buffers interfere when they are
/// live at the same time, and then they must not overlap.
struct PackingProblem {
  std::vector<PackingBuffer> buffers;
  /// N x N, meant to be symmetric; the diagonal is ignored. Missing rows or
  /// columns read as "no interference".
  std::vector<std::vector<bool>> interferes;

  /// True when a != b and either interferes[a][b] or interferes[b][a] is set,
  /// so that an asymmetric matrix cannot produce an invalid packing.
  bool interfere(size_t a, size_t b) const;
};

enum class PackingMethod {
  /// Nothing to share: no buffers, one buffer, or no interference at all, so
  /// every buffer goes to offset 0.
  Trivial,
  /// Branch and bound over "gravity" packings (see the implementation);
  /// optimal unless the node budget ran out (see provedOptimal).
  Exact,
  /// Too many buffers for the exact search: best-fit decreasing, or laying
  /// the buffers end to end where that happens to be smaller.
  BestFitDecreasing,
};

struct PackingOptions {
  /// Use the exact search when no interference component (a connected set of
  /// buffers; separate components are placed independently) has more than
  /// this many buffers. Random
  /// problems of 16 buffers take well under a second; the search is
  /// exponential, so much larger limits mostly buy budget exhaustion. Buffer
  /// sets are 64-bit masks: interference components of more than 64 buffers
  /// always keep their greedy packing.
  size_t exactLimit = 16;
  /// Search nodes (summed over components) before giving up on a proof; the
  /// best packing found so far is returned then.
  uint64_t nodeBudget = 50'000'000;
};

struct PackingResult {
  /// Byte offset of each buffer, indexed like PackingProblem::buffers.
  std::vector<uint64_t> offsets;
  /// Footprint of `offsets`: max(offset + size), 0 without buffers.
  uint64_t total = 0;
  /// Heaviest clique of the interference graph, by size: no packing can be
  /// smaller than this.
  uint64_t lowerBound = 0;
  /// Sum of the aligned sizes: what laying the buffers end to end without any
  /// reuse costs (an upper bound on the optimum).
  uint64_t naiveSum = 0;
  /// Footprint that best-fit decreasing alone reaches.
  uint64_t bestFitTotal = 0;
  PackingMethod method = PackingMethod::Trivial;
  /// The exact search finished without running out of budget, or the result
  /// meets `lowerBound`; either way `total` is the optimum.
  bool provedOptimal = false;
  /// Branch-and-bound nodes visited (0 when the exact search did not run).
  uint64_t nodesExplored = 0;
};

/// Packs the buffers of `p`: exact search (per interference component,
/// seeded with best-fit decreasing and a few other greedy packings) when
/// there are at most `opts.exactLimit` buffers, best-fit decreasing otherwise.
/// The result is always a valid packing, and never larger than best-fit
/// decreasing or than laying the buffers end to end (`naiveSum`).
PackingResult packBuffers(const PackingProblem &p,
                          const PackingOptions &opts = {});

//===----------------------------------------------------------------------===//
// Building blocks, exposed for tests and benchmarks.
//===----------------------------------------------------------------------===//

/// Best-fit decreasing: buffers by size descending (ties: alignment
/// descending, then index), each put into the shortest gap between already
/// placed interfering buffers that holds it once aligned (gap length measured
/// before alignment, ties to the lower gap), at the lowest aligned offset of
/// that gap; when no gap holds it, at the first aligned offset above all of
/// them. Fast (O(N^2 log N)) and usually close to the optimum; returns
/// offsets.
std::vector<uint64_t> bestFitDecreasing(const PackingProblem &p);

/// max(offsets[i] + size_i), 0 without buffers: the bytes a packing needs.
uint64_t footprint(const PackingProblem &p,
                   const std::vector<uint64_t> &offsets);

/// Weight of the heaviest clique of the interference graph, weights being
/// sizes. Buffers of a clique are pairwise live together, so any packing needs
/// at least this many bytes. Exact for interference components of up to 64
/// buffers; larger components contribute a greedy clique (still a valid, if
/// weaker, bound).
uint64_t maxWeightCliqueBound(const PackingProblem &p);

/// Checks that `offsets` has one entry per buffer, each a multiple of its
/// alignment, and that no two interfering buffers overlap. On failure, `why`
/// (when given) says which rule broke.
bool isValidPacking(const PackingProblem &p,
                    const std::vector<uint64_t> &offsets,
                    std::string *why = nullptr);

/// Sum over buffers of size rounded up to the buffer's alignment. Laying the
/// buffers end to end by decreasing alignment fits in this many bytes, so it
/// bounds the optimum from above; it is also the cost of not reusing memory.
uint64_t naiveSum(const PackingProblem &p);

} // namespace smem
} // namespace ext

#endif // EXT_ANALYSIS_SHAREDMEMORYPACKING_H
