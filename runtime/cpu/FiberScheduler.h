//===- FiberScheduler.h - GPU threads as cooperative fibers -----*- C++ -*-===//
//
// The CPU emulation's execution engine. Each GPU thread is a Boost.Context
// fiber with a small fixed stack, switched only at yield points (barriers,
// warp collectives, instrumented memory accesses, atomics and fences).
//
// A `Grid` is one launch: its parameters, its blocks' bookkeeping, its error.
// The blocks run on the `Device`'s workers, one OS thread per core, a thread
// block cluster at a time (a launch without clusters has clusters of one
// block): the workers a grid spreads over admit its clusters in linear
// order, each up to an even share, and a cluster's blocks stay together on
// the worker that admitted them (their threads, stacks and workgroup memory
// are that OS thread's, so a block reaches its peers' shared memory and
// mbarriers without locks) until all of them finished. A worker keeps blocks
// resident while they fit (the device holds at most
// Config::maxResidentThreads threads) and switches among them at atomics and
// fences, so spin-waits across blocks (a Stream-K fixup)
// progress; grids on different streams are resident together, so kernels
// waiting on each other progress too. Kernels' results do not depend on the
// worker count: a block's interleaving depends only on the seed and its
// index (a cluster's blocks' on the seed and the cluster's index), and a
// failed launch reports the failure of its lowest failing cluster.
//
// The kernel side calls in through the C entry points (Emulator.cpp), which
// find the running thread with currentThread().
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_FIBERSCHEDULER_H
#define EXT_RUNTIME_CPU_FIBERSCHEDULER_H

#include "BankCounter.h"
#include "Emulator.h"
#include "Progress.h"
#include "RaceDetector.h"

#include <boost/context/fiber.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ext::emu {

class Grid;
class Worker;
class StackPool;
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

/// A tensor map (nvgpu.tma.create.descriptor, built on the host): sizes,
/// byte strides and the box innermost first, as cuTensorMapEncodeTiled
/// takes them.
struct TensorMap {
  static constexpr uint64_t kMagic = 0x6578742d746d6170; // "ext-tmap"
  uint64_t magic = kMagic;
  const char *base = nullptr;
  int32_t elementBytes = 0, rank = 0, swizzle = 0;
  bool oobNan = false;
  int64_t sizes[5] = {}, strides[5] = {}, box[5] = {};
  int64_t boxBytes() const {
    int64_t n = elementBytes;
    for (int32_t d = 0; d < rank; ++d)
      n *= box[d];
    return n;
  }
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
  std::map<std::pair<int64_t, int64_t>, std::pair<int32_t, int32_t>>
      setmaxnreg;
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
  /// The block to run next (Worker::pick).
  Block *pickBlock();
};

/// Something a host can wait for: a launch, or a join of other events
/// (`gpu.wait async`). A host token is a pointer to one.
struct Event {
  /// Set once its work is over (a launch: every block retired).
  std::atomic<bool> done{false};
  /// A join is done when these are.
  std::vector<Event *> deps;
  bool join = false;
  /// A synchronous launch's: its host waits for it and takes its error;
  /// no other wait reports it.
  bool sync = false;
  /// A launch's error, reported once (by the wait that sees it first).
  std::string error;
  bool reported = false;
};

/// One launch. Host-side bookkeeping is under the device's lock; the
/// thread-side entry points run on the worker holding the thread's block.
class Grid {
public:
  /// `workers`: the worker threads it may spread over.
  Grid(LaunchParams params, const Config &config, int32_t workers);
  ~Grid();

  const LaunchParams &params() const { return p; }
  const Config &config() const { return c; }
  int32_t warpSize() const { return c.warpSize; }

  //===--------------------------------------------------------------------===//
  // Thread side (runs on a fiber)
  //===--------------------------------------------------------------------===//

  void barrier(Thread &t, int32_t site);
  void namedBarrier(Thread &t, int32_t id, int32_t count, int32_t site);
  /// Returns the mask of the lanes that took part.
  int64_t warpSync(Thread &t, int32_t site, int32_t width);
  void access(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
              int32_t site);
  void nameShared(Thread &t, const char *name, int64_t addr, int64_t bytes);
  /// Asynchronous copies: issued now, landed when the thread's wait covers
  /// their group or, with a nonzero seed, at one of its earlier yield points
  /// the seeded generator picks.
  void asyncCopy(Thread &t, int64_t dst, int64_t src, int64_t dstBytes,
                 int64_t srcBytes, int32_t site);
  void asyncCommit(Thread &t);
  /// Lands all but the newest `pending` committed groups of `t`.
  void asyncWait(Thread &t, int32_t pending, int32_t site);
  void print(Thread &t, std::string text);
  /// mbarriers and bulk tensor copies (Tma.cpp).
  void mbarrierInit(Thread &t, int64_t addr, int64_t count, int32_t site);
  void mbarrierArrive(Thread &t, int64_t addr, int64_t txBytes, int32_t site);
  void mbarrierInval(Thread &t, int64_t addr, int32_t site);
  bool mbarrierTryWait(Thread &t, int64_t addr, int32_t parity, int32_t site);
  void tmaLoad(Thread &t, const TensorMap *map, int64_t dst, int64_t barrier,
               const int64_t *coords, int32_t site);
  /// With a multicast mask: into each block of `t`'s cluster whose rank bit
  /// is set.
  void tmaLoadMulticast(Thread &t, const TensorMap *map, int64_t dst,
                        int64_t barrier, const int64_t *coords, int32_t mask,
                        int32_t site);
  /// Bulk tensor stores and their async-groups (TmaStore.cpp):
  /// cp.async.bulk.tensor from `src` (`t`'s workgroup memory) to the box of
  /// `map` at `coords`; cp.async.bulk.commit_group; wait_group `pending`
  /// (`read`: until the covered groups' source reads are done).
  void tmaStore(Thread &t, const TensorMap *map, int64_t src,
                const int64_t *coords, int32_t site);
  void bulkCommit(Thread &t);
  void bulkWait(Thread &t, int32_t pending, bool read, int32_t site);
  /// fence.proxy.async: `t`'s ordinary shared-memory writes so far are
  /// visible to the async proxy (bulk copies it or others issue after).
  void fenceProxyAsync(Thread &t, int32_t site);
  /// The calling block tracks ordinary writes for fence.proxy.async.
  void trackGenericWrites(Thread &t);
  /// `t`'s key in what barriers pass on of retired bulk-store reads
  /// (negative, unlike warpgroup keys): unique in its cluster.
  int64_t bulkKey(const Thread &t) const {
    return -1 - (t.block->rank * blockThreads + t.linear);
  }
  /// Fails the launch on a write of `t` (`byThread`: its own store or copy
  /// issue; else an asynchronous copy landing) into bytes a bulk tensor store
  /// in flight reads, or whose read retired where `t` cannot know it.
  void checkBulkSourceWrite(Thread &t, int64_t addr, int64_t bytes,
                            int32_t site, const char *what,
                            bool byThread = true);
  /// Notes an ordinary write of `t` to workgroup memory (proxy tracking).
  void recordGenericWrite(Thread &t, int64_t addr, int64_t bytes,
                          int32_t site);
  /// An async-proxy write (a TMA load landing) replaced these bytes: no
  /// ordinary write to them needs a fence any more.
  void forgetGenericWrites(Block &b, int64_t addr, int64_t bytes);
  /// Distributed shared memory (Tma.cpp): `addr`'s workgroup offset in the
  /// block of rank `rank` of `t`'s cluster; `count` arrivals on an mbarrier
  /// that may be a peer's.
  int64_t mapa(Thread &t, int64_t addr, int32_t rank, int32_t site);
  int64_t mbarrierArriveCount(Thread &t, int64_t addr, int64_t count,
                              bool relaxed, int32_t site);
  /// barrier.cluster.arrive(.relaxed) and barrier.cluster.wait.
  void clusterArrive(Thread &t, bool relaxed, int32_t site);
  void clusterWait(Thread &t, int32_t site);
  /// A shared-memory read the tensor cores make for `t`'s warpgroup (a wgmma
  /// operand's 16 bytes at `addr`): race detection only, no yield.
  void recordMatrixRead(Thread &t, int64_t addr, int64_t bytes, int32_t site);
  /// A failed `cf.assert` at `site`: fails the launch and suspends `t`.
  void assertFailed(Thread &t, const std::string &message, int32_t site);
  /// An instruction used against its contract at `site` (a matrix
  /// instruction on the wrong lane count, ...): fails the launch; `t` never
  /// runs again.
  [[noreturn]] void instructionFailed(Thread &t, int32_t site,
                                      std::string message);
  void onExit(Thread &t);
  /// wgmma.wait_group: until every thread of `t`'s warpgroup has issued its
  /// MMA number `sequence` (the group completes for the whole warpgroup).
  void waitForWarpgroupMma(Thread &t, int64_t sequence, int32_t site);
  /// Fails the launch on a write by `t` (`byThread`: its own store or issue; else a copy
  /// landing, whose issue was checked) into bytes MMAs read: an error while
  /// they are in flight, or, for `t`'s own writes, while their retirement
  /// is not known to `t`. `target`: the block written (a multicast's peer),
  /// `t`'s own by default.
  void checkWgmmaOperandWrite(Thread &t, int64_t addr, int64_t bytes,
                              int32_t site, const char *what,
                              bool byThread = true, Block *target = nullptr);
  /// A warpgroup's key, unique in its cluster (rank * warpgroups per block +
  /// the warpgroup's index in its block): what an mbarrier passes on of
  /// retired MMAs names the block they ran in.
  int64_t warpgroupKey(const Thread &t) const;
  /// An arrival of `t` on `b` passes on what `t` knows of retired MMAs; a
  /// completed wait of `t` on `b` learns what the phase's arrivals knew.
  static void publishWgmmaRetirement(const Thread &t, MBarrier &b);
  static void learnWgmmaRetirement(Thread &t, const MBarrier &b);
  /// The source location of site `index`.
  const std::string &siteName(int32_t index) const { return site(index); }
  int64_t threadsPerBlock() const { return blockThreads; }
  const Dim3 &clustersPerGrid() const { return clusterGrid; }

private:
  friend class Worker;
  friend class Device;
  friend Event *launchAsync(const LaunchParams &, const Config &,
                            const std::vector<int64_t> &,
                            const std::vector<Event *> &, std::string &,
                            bool);

  LaunchParams p;
  const Config c;
  /// Argument values copied at launch (an asynchronous launch outlives the
  /// host's slots) and the pointers the trampoline reads.
  std::vector<std::vector<char>> argValues;
  std::vector<void *> argPointers;
  int64_t blockThreads = 0, totalBlocks = 0, sharedBytes = 0;
  /// Clusters: how many along each dimension, in all, blocks in each.
  Dim3 clusterGrid;
  int64_t totalClusters = 0, clusterBlocks = 1;
  /// The order threads start and are released from barriers in.
  std::vector<int64_t> order;
  /// The workers that take its blocks: `workers` of them from `first` on,
  /// each admitting the grid's next cluster while it has room (clusters
  /// start in order, as a GPU dispatches them).
  int32_t workers = 1, first = 0, requested = 1;
  std::vector<int32_t> members;
  /// Device lock: the next cluster to admit, blocks admitted and retired.
  int64_t nextCluster = 0, admitted = 0, retired = 0;
  bool allAdmitted() const {
    return nextCluster >= totalClusters || nextCluster > failedCluster.load();
  }
  /// The lowest failing cluster and its error (device lock); clusters above
  /// it are abandoned, clusters below run on (one may fail lower). Without
  /// clusters, a cluster is a block and its index the block's.
  std::atomic<int64_t> failedCluster{INT64_MAX};
  std::string error;
  /// Blocks' gpu.printf lines, written in block order (device lock).
  std::map<int64_t, std::vector<PrintedLine>> printedBlocks;
  int64_t nextPrinted = 0;
  /// Owned by the device: a host's token outlives the grid.
  Event *event = nullptr;
  std::vector<Event *> deps;
  /// Null unless Config::racecheck (then the grid has one worker).
  std::unique_ptr<RaceDetector> races;
  /// Per worker, when Config::bankConflicts is on (device lock).
  std::map<int32_t, std::unique_ptr<BankCounter>> banks;
  LaunchProgress progress;

  const std::string &site(int32_t index) const;
  std::string where(const Thread &t) const;
  /// Fails the launch at `t`'s cluster (kept if it is the lowest so far).
  void fail(const Thread &t, std::string message);
  void failCluster(int64_t cluster, std::string message);
  bool failed() const {
    return failedCluster.load(std::memory_order_relaxed) != INT64_MAX;
  }
  bool abandoned(const Cluster &c) const {
    return failedCluster.load(std::memory_order_relaxed) <= c.linear;
  }
  bool abandoned(const Block &b) const { return abandoned(*b.cluster); }
  /// Fails the launch and suspends `t`: its `bytes`-byte `what` at `site`
  /// is misaligned, where a GPU faults; `detail` says where it points.
  void failMisaligned(Thread &t, int64_t bytes, const char *what, int32_t site,
                      const std::string &detail);
  std::string describeDeadlock(const Cluster &c) const;
  /// The block (of `t`'s cluster) whose workgroup memory holds `addr`, and
  /// the byte's offset there; null when none does.
  Block *sharedOwner(const Thread &t, int64_t addr, int64_t &offset) const;
  /// "block (x, y, z)", with its rank where the launch has clusters.
  std::string describeBlock(const Block &b) const;
  /// Fails the launch (and suspends `t`) when `b`, a peer `t` operates on
  /// remotely, has exited; whether it has.
  bool peerExited(Thread &t, const Block &b, const std::string &op,
                  int32_t site);
  /// Completes the cluster barrier's phase (every thread arrived).
  void releaseClusterBarrier(Cluster &c);
  /// Keeps a retired block's gpu.printf lines and writes those now in
  /// order (device lock).
  void blockPrinted(int64_t block, std::vector<PrintedLine> lines);
  void flushAllPrinted();
  /// Ends the launch (device lock): race and bank reports, printed lines.
  void finish();

  void suspend(Thread &t);
  void yield(Thread &t);
  /// The barrier at workgroup address `addr` of `t`'s block; fails the
  /// launch when it is outside workgroup memory or not initialized. With
  /// `owner`, `addr` may also be a shared::cluster address in a peer block
  /// of the cluster (not exited), set there.
  MBarrier *mbarrierAt(Thread &t, int64_t addr, const char *op, int32_t site,
                       Block **owner = nullptr);
  /// Whether `t` may issue a bulk tensor copy of `map` to `dst` (a store:
  /// from `dst`) in its workgroup memory (else the launch fails).
  bool checkTmaIssue(Thread &t, const TensorMap *map, int64_t dst,
                     int32_t site, bool store = false);
  /// Lands `copy` into shared memory; returns the bytes it completes.
  int64_t landTma(Thread &t, const TmaCopy &copy);
  /// A bulk tensor store's steps, on its issuing thread: the read of its
  /// source, the write of global memory (after the read), and the
  /// retirement of its reads (after the read; the chunks leave
  /// Block::bulkReads).
  void readTmaStore(Thread &t, TmaStore &store);
  void writeTmaStore(Thread &t, TmaStore &store);
  void retireTmaStoreRead(Thread &t, TmaStore &store);
  /// With a nonzero seed, lands `t`'s oldest bulk store not yet written by
  /// chance (its reads stay in flight until a wait covers them).
  void maybeLandBulkEarly(Thread &t);
  /// Lands and retires every bulk store of `t` (its exit).
  void completeBulkStores(Thread &t);
  /// Completes `b`'s phase when its arrivals and transactions are in.
  static void maybeCompletePhase(MBarrier &b);
  void push(Thread &t);
  void releaseBarrier(Block &b);
  void checkWarpRelease(Block &b, int32_t warpIndex);
  void schedule(Thread &t, int32_t kind, int32_t site);
  /// Feeds one access of `t` to the race detector (if on).
  void recordRace(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
                  int32_t site);
  /// Writes one asynchronous copy into shared memory (a store of its bytes,
  /// and a load of its source, for the race detector).
  void land(Thread &t, const AsyncCopy &copy);
  /// With a nonzero seed, lands `t`'s oldest copy in flight by chance.
  void maybeLandEarly(Thread &t);
};

/// One OS thread running the blocks the device gives it as fibers.
class Worker {
public:
  Worker(class Device &device, int32_t index);
  void run();

private:
  friend class Grid;
  class Device &device;
  int32_t index;
  /// Stacks by usable size (grids may ask for different sizes).
  std::map<size_t, std::unique_ptr<StackPool>> pools;
  std::vector<std::unique_ptr<Block>> resident;
  /// The clusters of the resident blocks, in admission order.
  std::vector<std::unique_ptr<Cluster>> clusters;
  int64_t readyCount = 0;
  uint64_t seenGeneration = ~uint64_t(0);
  int64_t residentThreads = 0;
  /// Threads switch within the current block of `current` at workgroup
  /// yield points (only its threads share that memory, and its stacks stay
  /// in cache); the worker moves to another cluster when asked to (atomics,
  /// fences: the points where blocks can wait on each other) or when
  /// `current` has nothing to run.
  Cluster *current = nullptr;
  bool switchBlock = true;
  BlockRandom rng{0};
  /// Consecutive yields at atomics and fences without progress here, and
  /// what the other workers' progress counters read when it last ran out.
  uint64_t spins = 0;
  std::vector<uint64_t> othersSeen;
  /// Bumped on each progress (read by other workers' livelock checks); on
  /// a cache line of its own, as the worker writes it at every access.
  alignas(64) std::atomic<uint64_t> progressMade{0};
  char padding[64 - sizeof(std::atomic<uint64_t>)];

  StackPool &poolFor(size_t usable);
  /// Whether this worker takes `g`'s blocks and its dependencies are done
  /// (device lock held).
  bool mayAdmit(Grid &g);
  /// The resident clusters `which` picks (a copy: retiring them edits the
  /// list).
  std::vector<Cluster *>
  residentWhere(const std::function<bool(const Cluster &)> &which);
  /// Admits what it may of the device's grids (device lock held).
  void admit();
  /// With every resident block spinning: admits one more cluster of a grid
  /// it serves, past its share if the device has room (a spin may wait for
  /// it); whether it did (takes the device lock).
  bool admitBeyondShare();
  void admitCluster(Grid &g, int64_t linear);
  Block *admitBlock(Grid &g, Cluster &cluster, int32_t rank);
  Cluster *chooseCluster();
  Thread *pick();
  /// Retires a finished or abandoned cluster, all its blocks (device lock
  /// taken per block).
  void retire(Cluster *c);
  void retireBlock(Block *b);
  void abandonThreads(Block &b);
  /// Whether any other worker progressed since this one last asked.
  bool othersProgressed();
  void noteProgress() {
    spins = 0;
    // Only this worker writes it: no read-modify-write needed.
    progressMade.store(progressMade.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
  }
};

/// The workers, the grids in flight and the events hosts wait on. One per
/// process (recreated in a forked child).
class Device {
public:
  static Device &get();

  /// Starts `grid` once `deps` are done; returns its event.
  Event *submit(std::unique_ptr<Grid> grid, std::vector<Event *> deps,
                bool sync);
  /// An event done when `deps` are.
  Event *join(std::vector<Event *> deps);
  /// Waits for `events` (every asynchronous launch in flight when empty)
  /// and returns the first error among them and what they waited for not
  /// reported before.
  std::string wait(const std::vector<Event *> &events);
  /// Forgets a waited-for event no host holds (a synchronous launch's).
  void release(Event *e);
  /// Workers a launch may spread over: Config::threads, else the cores this
  /// process may run on.
  static int32_t defaultWorkers();

private:
  friend class Worker;
  friend class Grid;
  std::mutex mutex;
  /// Workers wait for something to admit; hosts for events.
  std::condition_variable work, finished;
  /// Bumped (device lock) whenever something may have become admissible.
  std::atomic<uint64_t> generation{0};
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
  /// Grids submitted and not finished, in submission order.
  std::deque<std::unique_ptr<Grid>> grids;
  int64_t residentThreads = 0;
  int32_t nextFirst = 0;
  /// Asynchronous launches' and joins' events (a token may be waited on
  /// any number of times), and failed ones no wait has reported yet.
  std::vector<std::unique_ptr<Event>> events;
  std::vector<Event *> unreported;

  void ensureWorkers(int32_t count);
  bool complete(Event *e);
  void collectErrors(Event *e, std::string &first);
  /// Ends `g` if nothing of it is left to admit or run (device lock held).
  void maybeFinish(Grid &g);
  void bump();
};

/// The thread running on this OS thread; null outside a launch.
Thread *currentThread();

/// The tensor map at `map` for a bulk tensor copy (`what`) of `t` with
/// `rank` coordinates: a rank other than the map's fails the launch. (Not a
/// map at all is the copy's own check.)
const TensorMap *tensorMapOfRank(Thread &t, int64_t map, int32_t rank,
                                 int32_t site, const char *what);

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_FIBERSCHEDULER_H
