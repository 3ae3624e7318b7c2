//===- TileWork.h - index math of tile decompositions -----------*- C++ -*-===//
//
// Which CTA computes which work unit (a tile and a range [kBegin, kEnd) of its
// reduce iterations), who owns a split tile, which CTAs contribute partials to
// it and in what order, and a cost model that predicts the SM utilization of
// each decomposition. Plain integers, no MLIR: the attributes in
// Decompositions.cpp emit exactly these formulas as index arithmetic, and
// unittests/Support/TileWorkTest.cpp checks their properties on thousands of
// problems.
//
// Conventions shared by every decomposition:
//  * Tiles are linear indices in [0, tiles), each with `iters` iterations.
//  * A unit is Whole (all iterations: epilogue directly), Contributor (stores
//    its partial accumulators in workspace slot `slot`, then sets the slot's
//    flag) or Owner (runs the tile's last iterations, combines the
//    contributors' partials, then runs the epilogue).
//  * The fixup is a tree (combinedBy): rank a split tile's participants by
//    their distance from the owner (the owner 0, the contributor just below
//    it 1, ...). Rank r waits for and combines the partials of ranks r + 1,
//    r + 2, r + 4, ... while the step is below lowbit(r) (the owner: with no
//    bound) and the rank exists, then stores the result (a contributor) or
//    runs the epilogue (the owner). Rank r's result thus covers ranks
//    [r, r + lowbit(r)), the owner's all of them, and the owner combines
//    ceil(log2(n + 1)) partials of n contributors instead of n one after
//    another. The tree is fixed, so results are bitwise identical run to run.
//  * No deadlock for any grid: a tile's owner is the CTA that runs its last
//    iteration, and contributors always have smaller CTA ids than the owner.
//    CTAs start in increasing id order (GPUs dispatch them so and ext's
//    emulator admits them so), so every wait is on a CTA that started
//    earlier. By induction on the CTA id, every CTA finishes: CTA 0 waits on
//    nobody; CTA c waits only on CTAs < c, which are resident or done, and
//    which finish by induction; a resident CTA that waits never keeps a
//    lower one from being admitted. In the tree a contributor waits too, but
//    only on higher ranks of its tile, which are lower CTA ids: the
//    induction holds. A CTA runs its units from its last one backward, so
//    the partial it contributes (always its last unit) is stored first and
//    the tile it owns (always its first unit) is combined last, when its
//    contributors are most likely done.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_TILEWORK_H
#define EXT_SUPPORT_TILEWORK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

// tilework::Kind, generated from the decompositions' one registry
// (TileWorkKindCases.td). The generated declarations end with MLIR's
// FieldParser hook, a template over the parser that is never instantiated
// here but names FailureOr in mlir; this library does not use MLIR.
namespace mlir {
using llvm::FailureOr;
} // namespace mlir
#include "ext/Model/TileWorkKinds.h.inc"

namespace ext::tilework {

/// The decomposition's name as its attribute's mnemonic (`split_k` for
/// serial split-K, `split_k_parallel` for parallel), and back.
inline llvm::StringRef kindName(Kind kind) { return stringifyKind(kind); }
inline std::optional<Kind> kindNamed(llvm::StringRef name) {
  return symbolizeKind(name);
}

/// A decomposition resolved for one problem. Split-K: CTA c is slice
/// c / tiles of tile c % tiles. The Stream-K family: CTAs [0, skGrid) share
/// the iterations of tiles [0, skTiles) evenly; CTA skGrid + j computes tile
/// skTiles + j whole (data-parallel).
struct Plan {
  Kind kind = Kind::DataParallel;
  int64_t tiles = 0, iters = 0;
  int64_t grid = 0;   // CTAs of the main launch
  int64_t slices = 1; // split-K
  int64_t skTiles = 0, skGrid = 0;

  /// Partial tiles the workspace holds (one flag each).
  int64_t numSlots() const;
  /// CTAs of the reduction launch (parallel split-K), 0 if none.
  int64_t reductionGrid() const {
    return kind == Kind::SplitKParallel ? tiles : 0;
  }
  /// Iterations of the Stream-K region.
  int64_t skIters() const { return skTiles * iters; }
};

/// Resolves a decomposition for `tiles` tiles of `iters` iterations on `sms`
/// SMs. `param` is the grid of `stream_k` (0: `sms`) or the slices of
/// split-K. Returns std::nullopt and sets `why` when the problem cannot be
/// decomposed so (a message completing "cannot ...").
std::optional<Plan> makePlan(Kind kind, int64_t tiles, int64_t iters,
                             int64_t sms, int64_t param, std::string *why);

enum class Role { Whole, Contributor, Owner };

struct Unit {
  int64_t tile, kBegin, kEnd;
  Role role;
  int64_t slot; // Contributor: the slot it writes; otherwise -1
};

/// The units of CTA `cta` of the main launch, in the order it runs them.
llvm::SmallVector<Unit> unitsOf(const Plan &plan, int64_t cta);

/// The slots whose partials the owner of `tile` combines, in combine order
/// (for parallel split-K: the slots the reduction CTA of `tile` combines).
llvm::SmallVector<int64_t> contributorsOf(const Plan &plan, int64_t tile);

/// The slots unit `unit` (a Contributor or an Owner) waits for and combines
/// into its accumulators before it stores them or runs the epilogue, in
/// combine order: the tree fixup described at the top. Empty for a Whole
/// unit and for parallel split-K, whose reduction launch combines
/// contributorsOf(tile).
llvm::SmallVector<int64_t> combinedBy(const Plan &plan, const Unit &unit);

/// The CTA that writes slot `slot`.
int64_t writerOfSlot(const Plan &plan, int64_t slot);

/// The CTA that owns `tile` (runs its epilogue).
int64_t ownerOf(const Plan &plan, int64_t tile);

/// Stream-K: first iteration of CTA `cta` in the Stream-K region,
/// floor(cta * skIters / skGrid); the CTA that runs global iteration `g`.
int64_t skBegin(const Plan &plan, int64_t cta);
int64_t skCtaOf(const Plan &plan, int64_t g);

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

/// Costs in units of one main-loop iteration of one CTA on one SM (one CTA
/// per SM at a time).
struct CostModel {
  /// Storing one partial tile (and its flag), or combining one in.
  double partialCost = 0.1875;
  /// From the tile's reduce step: for ext's SIMT kernels an iteration reads
  /// two shared-memory words per accumulator per k (2 * BK * 4 bytes at 128
  /// B/clk/SM) and a partial moves 4 bytes per accumulator through L2 (about
  /// 21 B/clk/SM on an H100/H200), so a store or a combine costs about 3/BK
  /// iterations.
  static CostModel forTileK(int64_t tileK);
};

struct Prediction {
  double makespan = 0;    // iterations of time until the last CTA ends
  double utilization = 0; // useful iterations / (sms * makespan)
  int64_t grid = 0, waves = 0;
  int64_t maxItersPerCta = 0; // main-loop iterations of the busiest CTA
  int64_t maxUnitsPerCta = 0; // units of the CTA that runs the most
  double meanItersPerCta = 0;
  int64_t fixups = 0;     // partial tiles stored (= combined)
  int64_t splitTiles = 0; // tiles computed by more than one CTA
};

/// Plans of at most this many CTAs and tiles are simulated unit by unit;
/// larger ones by predictBounded.
constexpr int64_t kExactPredictionLimit = int64_t(1) << 16;

/// Simulates the plan on `sms` SMs: CTAs start in id order as SMs free up;
/// a CTA runs its units in order, a contributor pays `partialCost` to store,
/// an owner waits for each contributor's partial and pays `partialCost` to
/// combine it; a reduction launch (parallel split-K) starts when the main one
/// ends. Up to kExactPredictionLimit CTAs and tiles the simulation runs every
/// unit of every CTA; above, predictBounded. None when the plan is beyond the
/// bounded model too.
std::optional<Prediction> predict(const Plan &plan, int64_t sms,
                                  const CostModel &cost);

/// The same prediction in time and memory that do not grow with the tiles:
///  * Runs of equal CTAs (data-parallel, the whole tiles after a Stream-K
///    region, each slice of split-K, the reduction launch) are scheduled in
///    closed form: under list scheduling, n CTAs of duration d start at the
///    n smallest times f + k d (k >= 0) over the SMs' free times f. SMs are
///    kept as groups free at the same time, so their count costs nothing.
///  * A Stream-K CTA has at most three kinds of units (a partial at its
///    end, whole tiles, a partial at its start): O(1) work plus its tree
///    combines, CTA by CTA over the region's skGrid CTAs.
///  * Serial split-K with at least as many tiles as SMs ignores its waits:
///    a slice waits only for lower slices of its tile, at least `tiles`
///    CTAs earlier, so started a wave before it; their partials are stored
///    about when it starts and it needs them only after its main loop. With
///    fewer tiles it is simulated CTA by CTA, with the waits.
/// It simulates at most kMaxSimulatedCtas CTAs one by one and schedules at
/// most kMaxEqualRuns runs; beyond (an explicit stream_k grid of over 2^20
/// CTAs, split_k of over 4096 slices: far past any chip) it returns none. On the unit tests'
/// thousands of plans its counts equal the simulation's and its makespans
/// differ by rounding only (serial split-K's included).
constexpr int64_t kMaxSimulatedCtas = int64_t(1) << 20;
constexpr int64_t kMaxEqualRuns = int64_t(1) << 12;
std::optional<Prediction> predictBounded(const Plan &plan, int64_t sms,
                                         const CostModel &cost);

/// Whether a makespan is predicted shorter than `best`'s: by more than
/// rounding, so that ties go to the earlier (simpler) candidate. `auto`'s
/// rule at compile time and at launch.
inline bool predictedFaster(double makespan, double best) {
  return makespan < best * (1 - 1e-9);
}

//===----------------------------------------------------------------------===//
// Planning at launch
//===----------------------------------------------------------------------===//

/// What `#ext.auto` weighs when the tile count is known only at launch, in
/// tie-breaking order: the decompositions whose work units are one program
/// over a plan's few numbers (the Stream-K region's tiles and grid, then one
/// CTA per remaining tile), so that one kernel runs whichever is chosen.
/// Data-parallel is the plan without a region; `stream_k` runs on `sms`
/// CTAs. Split-K's slices would need a second program in the kernel; on the
/// decode shapes of bench/decode it is never predicted better than the best
/// of these.
constexpr Kind kLaunchCandidates[] = {Kind::DataParallel, Kind::StreamK,
                                      Kind::StreamKDP, Kind::StreamK2Tile};
constexpr int64_t kNumLaunchCandidates = 4;

/// The index in kLaunchCandidates of the candidate with the shortest
/// predicted makespan for `tiles` tiles of `iters` iterations on `sms` SMs
/// (ties to the earlier, as ext-apply-schedule's `auto`), or -1 if none can
/// run the problem. `prediction`, if given, receives the winner's.
int64_t chooseAtLaunch(int64_t tiles, int64_t iters, int64_t sms,
                       const CostModel &cost,
                       Prediction *prediction = nullptr);

} // namespace ext::tilework

#endif // EXT_SUPPORT_TILEWORK_H
