//===- LaunchState.h - what a launch's threads and blocks hold --*- C++ -*-===//
//
// The state the CPU emulation keeps per thread, warp, block and cluster of a
// launch: what the scheduler (FiberScheduler.h) switches between, and what
// the units that model asynchronous hardware (TMA, bulk stores, warpgroup
// MMAs, cp.async) read and update through UnitContext.h.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_LAUNCHSTATE_H
#define EXT_RUNTIME_CPU_LAUNCHSTATE_H

#include "Emulator.h"
#include "RaceDetector.h"
#include "TensorMap.h"

#include <boost/context/fiber.hpp>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ext::emu {

class BankCounter;
class Grid;
class Worker;
struct Block;
struct Cluster;

enum class ThreadState {
  Ready,
  Running,
  AtBarrier,
  AtWarpSync,
  AtClusterBarrier,
  Done
};

/// An asynchronous global-to-shared copy (nvgpu.device_async_copy) that has
/// been issued and not landed: `srcBytes` of `src` then zeros up to
/// `dstBytes` at `dst`.
struct AsyncCopy {
  char *dst;
  const char *src;
  int64_t dstBytes, srcBytes;
  int32_t site;
};

/// A bulk tensor copy issued and not landed.
struct TmaCopy {
  const TensorMap *map;
  char *dst;
  int64_t coords[5];
  int32_t site;
};

/// A bulk tensor store (cp.async.bulk.tensor, shared::cta to global) issued
/// and not complete (TmaStore.cpp): the box of `map` at `coords` read from
/// `src` in the issuing block's workgroup memory, through the map's swizzle.
/// Its source is read once (into `box`, at the covering wait or earlier) and
/// then written to global memory, clipped to the tensor.
struct TmaStore {
  const TensorMap *map;
  char *src;
  int64_t coords[5];
  int32_t site;
  /// Its issuing thread's how-many-th store (its knowledge key names the
  /// thread, Grid::bulkKey).
  int64_t sequence;
  /// The 16-byte chunks of workgroup memory it reads (addresses).
  std::vector<int64_t> chunks;
  /// Its source bytes, in box order, once read.
  std::vector<char> box;
  bool read = false, written = false, readRetired = false;
};

/// A bulk async-group: the stores a thread committed together; its reads
/// retire at a wait_group.read that covers it, the whole group at a
/// wait_group (without .read).
struct BulkGroup {
  std::vector<TmaStore> stores;
  bool readRetired = false;
};

/// An mbarrier: arrivals still expected in the current phase, transaction
/// bytes still to come (negative when copies completed before their
/// expect_tx), and the copies that will complete them.
struct MBarrier {
  int64_t expected = 0, pending = 0, tx = 0, phase = 0;
  /// Who initialized it, and after how many block barriers.
  int64_t initThread = -1, initEpoch = -1;
  std::vector<TmaCopy> copies;
  /// What its arrivals passed on of warpgroup MMAs' retirement (per
  /// warpgroup key, the last sequence number known retired): gathered over the
  /// current phase, and that of the last completed phase, which a wait that
  /// returns passes to the waiter (an mbarrier orders the arrivals before
  /// the completed wait).
  std::map<int64_t, int64_t> releasing, released;
};

struct Thread {
  Grid *launch = nullptr;
  Block *block = nullptr;
  Dim3 id;
  int64_t linear = 0;
  int32_t lane = 0, warp = 0;
  ThreadState state = ThreadState::Ready;
  /// The site of the barrier or collective it waits at.
  int32_t site = -1;
  /// The lanes that took part in its last warp collective.
  int64_t syncMask = 0;
  /// The thread's context while suspended, and the scheduler's while the
  /// thread runs.
  boost::context::fiber self, scheduler;
  /// The top of its stack (racecheck: private memory is never shadowed);
  /// null until it starts.
  char *stackTop = nullptr;
  /// Its stack, from the launch's pool.
  boost::context::stack_context stack;
  /// gpu.printf calls it has made.
  int64_t printCount = 0;
  /// Its asynchronous copies in flight: issued since its last commit, and
  /// the committed groups, oldest first (per thread, as cp.async groups
  /// are).
  std::vector<AsyncCopy> openCopies;
  std::deque<std::vector<AsyncCopy>> copyGroups;
  /// Its warpgroup MMAs (WarpgroupMma.cpp): fenced since its last wait,
  /// issued since its last commit, committed groups not waited for.
  bool wgmmaFenced = false;
  int32_t wgmmaIssued = 0, wgmmaGroups = 0;
  /// The groups in flight, oldest first, and the one being issued: the
  /// sites of their MMAs, whose accumulators may not be read yet.
  struct WgmmaGroup {
    std::vector<int32_t> sites;
    /// The sequence number of its last MMA (-1: none).
    int64_t lastSequence = -1;
  };
  std::deque<WgmmaGroup> wgmmaInFlight;
  WgmmaGroup wgmmaOpen;
  /// The last MMA sequence number its own waits retired (-1: none).
  int64_t wgmmaRetired = -1;
  /// Per warpgroup (its key in the cluster, Grid::warpgroupKey), the last
  /// MMA sequence number whose retirement reached it through an mbarrier
  /// (another thread waited, then arrived on a barrier this thread then
  /// waited on).
  std::map<int64_t, int64_t> wgmmaLearned;
  /// wgmma.mma_async operations it has issued (their order in its
  /// warpgroup: a warpgroup's threads issue the same sequence).
  int64_t wgmmaSequence = 0;
  /// The named barrier (bar.sync id) it waits at; 0: the block's.
  int32_t barrierId = 0;
  /// setmaxnreg instructions it has executed.
  int64_t setmaxnregCalls = 0;
  /// Whether it arrived at its cluster's barrier and has not waited yet,
  /// the barrier's phase then and the arrive's site.
  bool clusterArrived = false;
  int64_t clusterPhase = 0;
  int32_t clusterSite = -1;
  /// What its current spin waits for, said when it never ends.
  std::string waitingFor;
  /// Its bulk tensor stores (TmaStore.cpp): issued since its last
  /// cp.async.bulk.commit_group, and its committed bulk async-groups, oldest
  /// first; stores issued, and the last sequence number whose source reads
  /// its own wait retired (-1: none).
  std::vector<TmaStore> bulkOpen;
  std::vector<BulkGroup> bulkGroups;
  int64_t bulkSequence = 0, bulkRetired = -1;
  /// Proxy tracking (Block::genericWrites): the chunk indices it wrote
  /// with ordinary stores and has not fenced (fence.proxy.async) since.
  std::vector<int64_t> unfencedChunks;
};

/// A line a thread printed, held until its block finishes.
struct PrintedLine {
  int32_t warp, lane;
  /// The thread's how-many-th printf: a warp prints its lanes' first lines,
  /// then their second ones.
  int64_t sequence;
  std::string text;
};

/// One execution of a warp collective that lanes are gathering at. Lanes at
/// or above `width` do not take part, so they may run ahead to later
/// collectives: a warp can have several pending, one lane in at most one.
struct Collective {
  int32_t width = 0, site = -1;
  uint64_t arrived = 0; // lanes waiting here
};

struct Warp {
  /// In the order they were first reached; a lane joins the oldest one of
  /// its width it has not joined yet (lanes meet collectives in program
  /// order).
  std::vector<Collective> pending;
};

/// A small seeded generator (splitmix64): one per block, so a block's
/// interleaving depends on the seed and its index, not on the worker it
/// runs on.
struct BlockRandom {
  using result_type = uint64_t;
  uint64_t state;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

struct Block {
  Grid *grid = nullptr;
  Worker *worker = nullptr;
  /// Its cluster and its rank there (%cluster_ctarank).
  Cluster *cluster = nullptr;
  int32_t rank = 0;
  Dim3 id;
  int64_t linear = 0;
  BlockRandom rng{0};
  std::unique_ptr<Thread[]> threads;
  int64_t threadCount = 0;
  std::vector<Warp> warps;
  int64_t atBarrier = 0, exited = 0;
  int32_t barrierSite = -1;
  int64_t firstExited = -1;
  char *shared = nullptr, *scratch = nullptr;
  /// Its runnable threads.
  std::deque<Thread *> ready;
  /// What the race detector keeps for it.
  BlockRaceState race;
  /// gpu.printf output, written when the block finishes.
  std::vector<PrintedLine> printed;
  /// Gave up after its launch failed in a lower block (a spin that waited
  /// for something the failure stopped).
  bool givenUp = false;
  /// Whether a thread of it has run yet (progress estimates).
  bool started = false;
  /// Its worker's bank counter for its grid; null unless counting.
  BankCounter *banks = nullptr;
  /// A warpgroup MMA is one operation of its 128 threads: the operands
  /// its first thread to issue it read, by (warpgroup, sequence number),
  /// until every thread of the warpgroup has taken its accumulators.
  struct WgmmaOperands {
    int64_t descA = 0, descB = 0;
    int32_t kind = 0, n = 0, flags = 0, site = -1, taken = 0;
    std::vector<float> a, b; // A: 64 x K, B: N x K, row-major
  };
  std::map<std::pair<int64_t, int64_t>, WgmmaOperands> wgmmaOperands;
  /// The 16-byte shared-memory chunks warpgroup MMAs in flight read: by
  /// (warpgroup, sequence number), and how many of them read each chunk
  /// (the site of one); a write there before they retire is an error.
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> wgmmaReads;
  std::map<int64_t, std::pair<int32_t, int32_t>> wgmmaReadChunks;
  /// Chunks of MMAs that retired since the block's last barrier: one
  /// thread's wait proved them done, but a thread that neither waited for
  /// them itself nor passed a barrier since may still run ahead of them (on
  /// a GPU its write could land under the MMA). Per chunk: the MMA's site,
  /// its warpgroup's key and the sequence number of the group's last MMA.
  struct RetiredRead {
    int32_t site;
    int64_t warpgroup, sequence;
  };
  std::map<int64_t, RetiredRead> wgmmaRetiredChunks;
  /// Whether a thread's own write could fall under an MMA's reads (in
  /// flight, or retired but not yet ordered by a barrier): the one test
  /// before checkWgmmaOperandWrite on the store and copy-issue paths.
  bool hasWgmmaReads() const {
    return !wgmmaReadChunks.empty() || !wgmmaRetiredChunks.empty();
  }
  /// The 16-byte chunks bulk tensor stores in flight read (issued, not yet
  /// covered by their thread's wait_group): how many read each, and the
  /// site and issuing thread of one. A write there fails the launch.
  struct BulkRead {
    int32_t count = 0, site = -1;
    int64_t issuer = 0;
  };
  std::map<int64_t, BulkRead> bulkReads;
  /// Chunks of bulk stores whose reads their thread's wait retired since
  /// the block's last barrier: a write by a thread that the wait is not
  /// ordered before (its own wait, a barrier, what an mbarrier passed on)
  /// could still land under the copy engine's read on a GPU.
  struct BulkRetired {
    int32_t site;
    int64_t issuer, key, sequence;
  };
  std::map<int64_t, BulkRetired> bulkRetiredChunks;
  bool hasBulkReads() const {
    return !bulkReads.empty() || !bulkRetiredChunks.empty();
  }
  /// Proxy tracking, on in kernels of modules with TMA stores
  /// (__ext_emu_track_generic_writes): per 16-byte chunk of workgroup
  /// memory (its index), the ordinary (generic-proxy) writes the copy
  /// engine may not see yet: the writer, the site, the chunk's bytes whose
  /// last write it made, and the block's `syncs` when its writer fenced
  /// them (-1: not yet).
  bool proxyTracking = false;
  struct GenericWrite {
    int64_t thread;
    int32_t site;
    uint32_t bytes;
    int64_t fenced;
  };
  std::unordered_map<int64_t, std::vector<GenericWrite>> genericWrites;
  /// Barriers released in the block (block-wide, named, cluster) and
  /// mbarrier waits that returned: what may order a fence before a store
  /// another thread issues.
  int64_t syncs = 0;
  /// Each warpgroup's setmaxnreg instructions in order, as its first thread
  /// to reach them executed them: by (warpgroup, index), (site, count).
  std::map<std::pair<int64_t, int64_t>, std::pair<int32_t, int32_t>> setmaxnreg;
  /// Its named barriers (bar.sync id, count): the count of their current
  /// use and the threads waiting.
  struct NamedBarrier {
    int32_t count = 0;
    std::vector<Thread *> waiting;
  };
  std::map<int32_t, NamedBarrier> namedBarriers;
  /// Block-wide barriers it has passed (orders mbarrier inits).
  int64_t barriers = 0;
  /// Its initialized mbarriers, by workgroup byte offset.
  std::map<int64_t, MBarrier> mbarriers;
  /// Whether all its threads have exited (a peer's remote operation on it
  /// is then an error: on a GPU its shared memory may be gone).
  bool finished() const;
  ~Block();
};

/// A thread block cluster: blocks the hardware keeps resident together, on
/// one worker here. The worker runs one block of it at a time and moves to
/// another at the cluster's own spin points and when that block has nothing
/// to run, choosing with the cluster's generator: the blocks' interleaving
/// depends on the seed and the cluster's index only.
struct Cluster {
  Grid *grid = nullptr;
  Dim3 id;
  int64_t linear = 0;
  /// By rank.
  std::vector<Block *> blocks;
  BlockRandom rng{0};
  Block *current = nullptr;
  bool switchBlock = false;
  /// barrier.cluster: arrivals in the current phase (and how many of each
  /// block's were relaxed), the phases completed, and what the arrivals
  /// passed on of retired warpgroup MMAs (as an mbarrier's do).
  int64_t arrived = 0, phase = 0;
  std::vector<int64_t> relaxedArrivals;
  MBarrier knowledge;

  bool hasReady() const;
  bool finished() const;
  /// The block to run next (Worker::pick), as the launch's `policy` picks.
  Block *pickBlock(Policy policy);
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_LAUNCHSTATE_H
