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

#include "AsyncCopy.h"
#include "BankCounter.h"
#include "Barriers.h"
#include "Emulator.h"
#include "LaunchState.h"
#include "PrintedOutput.h"
#include "Progress.h"
#include "RaceDetector.h"
#include "Tma.h"
#include "TmaStore.h"
#include "UnitContext.h"
#include "WarpgroupMma.h"

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

class StackPool;

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

  void access(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
              int32_t site);
  void nameShared(Thread &t, const char *name, int64_t addr, int64_t bytes);
  /// A failed `cf.assert` at `site`: fails the launch and suspends `t`.
  void assertFailed(Thread &t, const std::string &message, int32_t site);
  /// An instruction used against its contract at `site` (a matrix
  /// instruction on the wrong lane count, ...): fails the launch; `t` never
  /// runs again.
  [[noreturn]] void instructionFailed(Thread &t, int32_t site,
                                      std::string message);
  void onExit(Thread &t);
  int64_t threadsPerBlock() const { return blockThreads; }
  /// What the units know of the launch, and the services they use.
  const UnitContext &units() const { return context; }
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
  PrintedOutput printed;
  /// Owned by the device: a host's token outlives the grid.
  Event *event = nullptr;
  std::vector<Event *> deps;
  /// Null unless Config::racecheck (then the grid has one worker).
  std::unique_ptr<RaceDetector> races;
  /// Per worker, when Config::bankConflicts is on (device lock).
  std::map<int32_t, std::unique_ptr<BankCounter>> banks;
  LaunchProgress progress;

  const std::string &site(int32_t index) const {
    return context.location(index);
  }
  std::string where(const Thread &t) const { return context.describe(t); }
  std::string describeBlock(const Block &b) const {
    return context.describe(b);
  }
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
  /// Ends the launch (device lock): race and bank reports, printed lines.
  void finish();

  void yield(Thread &t);
  void push(Thread &t);
  void schedule(Thread &t, int32_t kind, int32_t site);
  /// Feeds one access of `t` to the race detector (if on).
  void recordRace(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
                  int32_t site);

  /// What the units know of the launch and the services they use (set by
  /// the constructor).
  UnitContext context;

public:
  /// The units that model Hopper's asynchronous hardware, and the
  /// barriers and warp collectives; their C entry points are
  /// UnitEntryPoints.cpp's and Emulator.cpp's.
  WarpgroupMmaUnit wgmma{context};
  BulkStoreUnit bulkStores{context};
  TmaUnit tma{context, wgmma, bulkStores};
  AsyncCopyUnit copies{context, wgmma, bulkStores};
  BarrierUnit barriers{context, wgmma, copies};
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

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_FIBERSCHEDULER_H
