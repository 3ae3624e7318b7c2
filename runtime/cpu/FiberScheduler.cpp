//===- FiberScheduler.cpp - GPU threads as cooperative fibers -------------===//

#include "FiberScheduler.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <tuple>
#include <unistd.h>

namespace ext::emu {

namespace bctx = boost::context;

//===----------------------------------------------------------------------===//
// Stacks
//===----------------------------------------------------------------------===//

/// mmap'd stacks with a guard page below each (an overflow faults instead of
/// corrupting a neighbour), kept for reuse: a launch creates a fiber per
/// thread per block, and mmap per fiber would dominate small kernels.
namespace {
/// Stacks mapped by all workers' pools. Each is two mappings (its guard
/// page and its stack) and Linux allows 65530 per process: free stacks are
/// kept for reuse only while the total stays below what the default
/// residency needs.
std::atomic<int64_t> mappedStacks{0};
constexpr int64_t kKeptStacks = 16384;
} // namespace

class StackPool {
public:
  explicit StackPool(size_t usable) {
    page = size_t(sysconf(_SC_PAGESIZE));
    this->usable = (usable + page - 1) / page * page;
  }
  ~StackPool() {
    for (void *base : free)
      unmap(base);
  }
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;

  bctx::stack_context allocate() {
    void *base;
    if (!free.empty()) {
      base = free.back();
      free.pop_back();
    } else {
      base = mmap(nullptr, usable + page, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED)
        throw std::bad_alloc();
      mprotect(base, page, PROT_NONE);
      mappedStacks.fetch_add(1, std::memory_order_relaxed);
    }
    bctx::stack_context sctx;
    sctx.size = usable;
    sctx.sp = static_cast<char *>(base) + page + usable;
    return sctx;
  }
  void deallocate(bctx::stack_context &sctx) noexcept {
    void *base = static_cast<char *>(sctx.sp) - sctx.size - page;
    if (mappedStacks.load(std::memory_order_relaxed) > kKeptStacks)
      unmap(base);
    else
      free.push_back(base);
  }
  size_t usableBytes() const { return usable; }
  /// Unmaps the stacks kept for reuse (those in use stay).
  void releaseFree() {
    for (void *base : free)
      unmap(base);
    free.clear();
  }

private:
  void unmap(void *base) {
    munmap(base, usable + page);
    mappedStacks.fetch_sub(1, std::memory_order_relaxed);
  }

  size_t page, usable;
  std::vector<void *> free;
};

namespace {

/// The allocator handle a fiber copies into its control block; it notes
/// the stack in the thread, so a thread abandoned mid-kernel gives it back.
struct PoolAllocator {
  StackPool *pool;
  Thread *thread;
  bctx::stack_context allocate() {
    thread->stack = pool->allocate();
    return thread->stack;
  }
  void deallocate(bctx::stack_context &sctx) noexcept {
    pool->deallocate(sctx);
  }
};

thread_local Thread *tlsThread = nullptr;

/// After an error in a lower block, a block spinning this long without
/// progress anywhere is waiting for something the failure stopped.
constexpr uint64_t kSpinLimitAfterFailure = uint64_t(1) << 16;

} // namespace

Thread *currentThread() { return tlsThread; }

Block::~Block() {
  std::free(shared);
  std::free(scratch);
}

bool Block::finished() const { return exited == grid->threadsPerBlock(); }

bool Cluster::hasReady() const {
  for (const Block *b : blocks)
    if (!b->ready.empty())
      return true;
  return false;
}

bool Cluster::finished() const {
  for (const Block *b : blocks)
    if (!b->finished())
      return false;
  return true;
}

Block *Cluster::pickBlock() {
  if (blocks.size() == 1)
    return current = blocks.front();
  if (current && !current->ready.empty() && !switchBlock)
    return current;
  switchBlock = false;
  // Only the cluster's own state decides (not when the worker came back to
  // it): its blocks' interleaving does not depend on the other clusters.
  if (grid->config().policy == Policy::Random) {
    std::vector<Block *> candidates;
    for (Block *b : blocks)
      if (!b->ready.empty())
        candidates.push_back(b);
    return current = candidates[size_t(rng() % candidates.size())];
  }
  size_t n = blocks.size(), start = current ? size_t(current->rank) + 1 : 0;
  for (size_t k = 0; k < n; ++k)
    if (!blocks[(start + k) % n]->ready.empty())
      return current = blocks[(start + k) % n];
  return nullptr; // unreachable: Worker::pick asks a cluster with work
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {
Device *theDevice = nullptr;
std::once_flag forkHandler;
} // namespace

Device &Device::get() {
  // Never destroyed: workers may sit in a wait when the process exits.
  static std::mutex creation;
  std::lock_guard<std::mutex> lock(creation);
  std::call_once(forkHandler, [] {
    // A forked child has none of the parent's workers: it starts a new
    // device (the old one, whose locks a worker may have held, is left).
    pthread_atfork(nullptr, nullptr, [] { theDevice = nullptr; });
  });
  if (!theDevice)
    theDevice = new Device();
  return *theDevice;
}

int32_t Device::defaultWorkers() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return int32_t(std::max(1u, std::thread::hardware_concurrency()));
}

void Device::ensureWorkers(int32_t count) {
  while (int32_t(workers.size()) < count) {
    workers.push_back(std::make_unique<Worker>(*this, int32_t(workers.size())));
    Worker *w = workers.back().get();
    threads.emplace_back([w] { w->run(); });
    threads.back().detach();
  }
}

void Device::bump() {
  generation.fetch_add(1, std::memory_order_release);
  work.notify_all();
}

Event *Device::submit(std::unique_ptr<Grid> grid, std::vector<Event *> deps,
                      bool sync) {
  std::lock_guard<std::mutex> lock(mutex);
  ensureWorkers(grid->requested);
  // Consecutive launches start on different workers, so one-block kernels
  // on different streams run side by side.
  int32_t count = int32_t(workers.size());
  grid->first = nextFirst;
  nextFirst = (nextFirst + 1) % count;
  grid->workers = std::min(grid->workers, count);
  for (int32_t s = 0; s < grid->workers; ++s)
    grid->members.push_back((grid->first + s) % count);
  events.push_back(std::make_unique<Event>());
  Event *e = events.back().get();
  e->deps = deps;
  e->sync = sync;
  grid->event = e;
  grid->deps = std::move(deps);
  grids.push_back(std::move(grid));
  bump();
  return e;
}

Event *Device::join(std::vector<Event *> deps) {
  std::lock_guard<std::mutex> lock(mutex);
  events.push_back(std::make_unique<Event>());
  Event *e = events.back().get();
  e->join = true;
  e->deps = std::move(deps);
  return e;
}

bool Device::complete(Event *e) {
  if (!e || e->done.load(std::memory_order_acquire))
    return true;
  if (!e->join)
    return false;
  for (Event *d : e->deps)
    if (!complete(d))
      return false;
  e->done.store(true, std::memory_order_release);
  return true;
}

void Device::collectErrors(Event *e, std::string &first) {
  if (!e)
    return;
  for (Event *d : e->deps)
    collectErrors(d, first);
  if (!e->error.empty() && !e->reported) {
    e->reported = true;
    unreported.erase(std::remove(unreported.begin(), unreported.end(), e),
                     unreported.end());
    if (first.empty())
      first = e->error;
  }
}

std::string Device::wait(const std::vector<Event *> &waitFor) {
  std::unique_lock<std::mutex> lock(mutex);
  std::string first;
  if (waitFor.empty()) {
    finished.wait(lock, [&] {
      return std::all_of(grids.begin(), grids.end(), [](auto &g) {
        return g->event->sync;
      });
    });
    for (Event *e : std::vector<Event *>(unreported))
      collectErrors(e, first);
    return first;
  }
  finished.wait(lock, [&] {
    return std::all_of(waitFor.begin(), waitFor.end(),
                       [&](Event *e) { return complete(e); });
  });
  for (Event *e : waitFor)
    collectErrors(e, first);
  return first;
}

void Device::release(Event *e) {
  std::lock_guard<std::mutex> lock(mutex);
  unreported.erase(std::remove(unreported.begin(), unreported.end(), e),
                   unreported.end());
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->get() == e) {
      events.erase(std::next(it).base());
      break;
    }
}

void Device::maybeFinish(Grid &g) {
  if (!g.allAdmitted() || g.retired != g.admitted)
    return;
  g.finish();
  Event *e = g.event;
  if (!e->error.empty() && !e->sync)
    unreported.push_back(e);
  e->done.store(true, std::memory_order_release);
  for (auto it = grids.begin(); it != grids.end(); ++it)
    if (it->get() == &g) {
      grids.erase(it);
      break;
    }
  finished.notify_all();
  bump();
}

//===----------------------------------------------------------------------===//
// Worker
//===----------------------------------------------------------------------===//

Worker::Worker(Device &device, int32_t index)
    : device(device), index{index}, rng{uint64_t(index) * 7919} {}

StackPool &Worker::poolFor(size_t usable) {
  // Kernels with private memory get stacks of their own size. The stacks
  // kept for reuse at other sizes are unmapped when the size changes: kept
  // ones at one size and in-use ones at another would pass Linux's 65530
  // mappings (two a stack) in a process that runs many kernels, and the
  // next mmap would fail.
  for (auto &[size, other] : pools)
    if (size != usable && other)
      other->releaseFree();
  std::unique_ptr<StackPool> &pool = pools[usable];
  if (!pool)
    pool = std::make_unique<StackPool>(usable);
  return *pool;
}

bool Worker::mayAdmit(Grid &g) {
  return std::find(g.members.begin(), g.members.end(), index) != g.members.end() &&
         std::all_of(g.deps.begin(), g.deps.end(),
                     [&](Event *e) { return device.complete(e); });
}

std::vector<Cluster *>
Worker::residentWhere(const std::function<bool(const Cluster &)> &which) {
  std::vector<Cluster *> found;
  for (auto &c : clusters)
    if (which(*c))
      found.push_back(c.get());
  return found;
}

void Worker::admit() {
  seenGeneration = device.generation.load(std::memory_order_acquire);
  // Finishing a grid erases it from the list: walk a snapshot.
  std::vector<Grid *> grids;
  for (auto &g : device.grids)
    grids.push_back(g.get());
  for (Grid *gp : grids) {
    Grid &g = *gp;
    if (!mayAdmit(g))
      continue;
    // Room for this worker's share of the grid, in clusters (resident
    // together): what the device holds over the workers, and no more than
    // an even split of them (a worker that wakes first does not take them
    // all).
    int64_t clusterThreads = g.blockThreads * g.clusterBlocks;
    int64_t share = std::min<int64_t>(
        g.c.maxResidentThreads / g.workers / clusterThreads,
        (g.totalClusters + g.workers - 1) / g.workers);
    share = std::max<int64_t>(1, share);
    int64_t mine = 0;
    for (auto &c : clusters)
      mine += c->grid == &g;
    while (!g.allAdmitted() && mine < share) {
      if (device.residentThreads > 0 &&
          device.residentThreads + clusterThreads > g.c.maxResidentThreads)
        break;
      admitCluster(g, g.nextCluster++);
      ++mine;
    }
    device.maybeFinish(g);
  }
}

bool Worker::admitBeyondShare() {
  std::lock_guard<std::mutex> lock(device.mutex);
  for (auto &gp : device.grids) {
    Grid &g = *gp;
    if (g.allAdmitted() || !mayAdmit(g) ||
        device.residentThreads + g.blockThreads * g.clusterBlocks >
            g.c.maxResidentThreads)
      continue;
    admitCluster(g, g.nextCluster++);
    return true;
  }
  return false;
}

void Worker::admitCluster(Grid &g, int64_t linear) {
  auto cluster = std::make_unique<Cluster>();
  cluster->grid = &g;
  cluster->linear = linear;
  cluster->id = delinearize(linear, g.clusterGrid);
  cluster->rng =
      BlockRandom{g.c.seed * 0x9e3779b97f4a7c15ull + uint64_t(linear) + 1};
  cluster->relaxedArrivals.assign(size_t(g.clusterBlocks), 0);
  for (int32_t rank = 0; rank < g.clusterBlocks; ++rank)
    cluster->blocks.push_back(admitBlock(g, *cluster, rank));
  clusters.push_back(std::move(cluster));
}

Block *Worker::admitBlock(Grid &g, Cluster &cluster, int32_t rank) {
  // Cluster (cx, cy, cz) holds the blocks of ids [cx * CX, cx * CX + CX)
  // and so on; rank x + y * CX + z * CX * CY of their place in it.
  const Dim3 &shape = g.p.cluster;
  Dim3 inCluster = delinearize(rank, shape);
  Dim3 id{cluster.id.x * shape.x + inCluster.x,
          cluster.id.y * shape.y + inCluster.y,
          cluster.id.z * shape.z + inCluster.z};
  int64_t linear = id.x + g.p.grid.x * (id.y + g.p.grid.y * id.z);
  auto block = std::make_unique<Block>();
  block->grid = &g;
  block->worker = this;
  block->cluster = &cluster;
  block->rank = rank;
  block->linear = linear;
  block->id = id;
  block->rng = BlockRandom{g.c.seed * 0x2545f4914f6cdd1dull + uint64_t(linear)};
  int64_t n = g.blockThreads;
  block->threads = std::make_unique<Thread[]>(n);
  block->warps.resize((n + g.c.warpSize - 1) / g.c.warpSize);
  // Workgroup memory starts out as 0xff bytes (NaN, -1): reading what
  // no thread wrote is visible in the results, as garbage is on a GPU.
  // Aligned to 256 KiB, the shared window's size on every chip: the low
  // 18 bits of an address are its offset in the window, which is what a
  // wgmma matrix descriptor keeps (and what its swizzle XORs).
  constexpr int64_t window = int64_t(1) << 18;
  block->shared = static_cast<char *>(std::aligned_alloc(
      window,
      std::max<int64_t>(window, (g.sharedBytes + window - 1) / window * window)));
  std::memset(block->shared, 0xff, g.sharedBytes);
  if (g.races)
    g.races->initBlock(block->race);
  if (g.c.bankConflicts) {
    std::unique_ptr<BankCounter> &banks = g.banks[index];
    if (!banks)
      banks = std::make_unique<BankCounter>(n);
    block->banks = banks.get();
  }
  block->scratch = static_cast<char *>(
      std::aligned_alloc(64, n * EXT_EMU_SCRATCH_BYTES_PER_THREAD));
  StackPool *pool = &poolFor(g.c.stackBytes);
  for (int64_t i = 0; i < n; ++i) {
    Thread &t = block->threads[i];
    t.launch = &g;
    t.block = block.get();
    t.linear = i;
    t.id = delinearize(i, g.p.block);
    t.lane = int32_t(i % g.c.warpSize);
    t.warp = int32_t(i / g.c.warpSize);
    Thread *tp = &t;
    t.self = bctx::fiber(std::allocator_arg, PoolAllocator{pool, tp},
                         [tp](bctx::fiber &&scheduler) {
                           tp->scheduler = std::move(scheduler);
                           tp->stackTop =
                               static_cast<char *>(__builtin_frame_address(0));
                           tp->launch->p.trampoline(tp->launch->p.args);
                           tp->launch->onExit(*tp);
                           return std::move(tp->scheduler);
                         });
  }
  for (int64_t i : g.order) {
    block->ready.push_back(&block->threads[i]);
    ++readyCount;
  }
  residentThreads += n;
  device.residentThreads += n;
  ++g.admitted;
  resident.push_back(std::move(block));
  return resident.back().get();
}

Cluster *Worker::chooseCluster() {
  Policy policy = clusters.front()->grid->c.policy;
  if (policy == Policy::Random) {
    std::vector<Cluster *> candidates;
    for (auto &c : clusters)
      if (c->hasReady())
        candidates.push_back(c.get());
    return candidates[size_t(rng() % candidates.size())];
  }
  // The next cluster with work after `current`, in admission order.
  size_t n = clusters.size(), start = 0;
  for (size_t i = 0; i < n; ++i)
    if (clusters[i].get() == current)
      start = i + 1;
  for (size_t k = 0; k < n; ++k) {
    Cluster *c = clusters[(start + k) % n].get();
    if (c->hasReady())
      return c;
  }
  return nullptr; // unreachable: readyCount > 0
}

Thread *Worker::pick() {
  if (!current || !current->hasReady() || switchBlock)
    current = chooseCluster();
  switchBlock = false;
  Block *block = current->pickBlock();
  std::deque<Thread *> &ready = block->ready;
  Thread *t;
  if (block->grid->c.policy == Policy::Random) {
    size_t index = size_t(block->rng() % ready.size());
    t = ready[index];
    ready[index] = ready.back();
    ready.pop_back();
  } else {
    t = ready.front();
    ready.pop_front();
  }
  --readyCount;
  return t;
}

void Worker::abandonThreads(Block &b) {
  // Destroying a fiber suspended in a kernel would unwind through frames
  // that have no unwind tables. Its handle is dropped without its
  // destructor and its stack goes back to the pool: the host process goes
  // on after a failed launch (Python raises), so nothing may leak per
  // launch. A fiber that never started unwinds harmlessly.
  union Dropped {
    bctx::fiber handle;
    Dropped() {}
    ~Dropped() {}
  };
  StackPool &pool = poolFor(b.grid->c.stackBytes);
  for (int64_t i = 0; i < b.grid->blockThreads; ++i) {
    Thread &t = b.threads[i];
    if (!t.self || !t.stackTop)
      continue;
    Dropped dropped;
    new (&dropped.handle) bctx::fiber(std::move(t.self));
    pool.deallocate(t.stack);
  }
}

void Worker::retire(Cluster *c) {
  if (current == c)
    current = nullptr;
  std::unique_ptr<Cluster> owned;
  for (auto it = clusters.begin(); it != clusters.end(); ++it)
    if (it->get() == c) {
      owned = std::move(*it);
      clusters.erase(it);
      break;
    }
  // Its blocks' shared memory stays until the last of them is gone; the
  // last retirement may end (and free) the grid.
  for (Block *b : owned->blocks)
    retireBlock(b);
}

void Worker::retireBlock(Block *b) {
  Grid &g = *b->grid;
  if (b->exited != g.blockThreads)
    abandonThreads(*b);
  if (b->exited == g.blockThreads && b->banks)
    b->banks->flushBlock(b->linear);
  readyCount -= int64_t(b->ready.size());
  residentThreads -= g.blockThreads;
  std::unique_ptr<Block> owned;
  for (auto it = resident.begin(); it != resident.end(); ++it)
    if (it->get() == b) {
      owned = std::move(*it);
      resident.erase(it);
      break;
    }
  std::lock_guard<std::mutex> lock(device.mutex);
  device.residentThreads -= g.blockThreads;
  ++g.retired;
  g.progress.blockRetired(b->linear);
  g.blockPrinted(b->linear, std::move(b->printed));
  owned.reset();
  device.maybeFinish(g);
  device.bump();
}

bool Worker::othersProgressed() {
  std::lock_guard<std::mutex> lock(device.mutex);
  size_t n = device.workers.size();
  othersSeen.resize(n, ~uint64_t(0));
  bool progressed = false;
  for (size_t i = 0; i < n; ++i) {
    if (int32_t(i) == index)
      continue;
    uint64_t seen =
        device.workers[i]->progressMade.load(std::memory_order_relaxed);
    if (seen != othersSeen[i])
      progressed = true;
    othersSeen[i] = seen;
  }
  return progressed;
}

void Worker::run() {
  while (true) {
    if (resident.empty() ||
        device.generation.load(std::memory_order_acquire) != seenGeneration) {
      std::unique_lock<std::mutex> lock(device.mutex);
      admit();
      while (resident.empty()) {
        uint64_t seen = seenGeneration;
        device.work.wait(lock, [&] {
          return device.generation.load(std::memory_order_acquire) != seen;
        });
        admit();
      }
    }
    if (readyCount == 0) {
      // Every resident cluster is retired as soon as it has nothing to run;
      // this would be a scheduler bug. Fail them rather than hang.
      for (Cluster *c : residentWhere([](const Cluster &) { return true; })) {
        c->grid->failCluster(c->linear, c->grid->describeDeadlock(*c));
        retire(c);
      }
      continue;
    }
    Thread *t = pick();
    Block *b = t->block;
    Cluster *cluster = b->cluster;
    Grid &g = *b->grid;
    if (g.abandoned(*b)) {
      retire(cluster);
      continue;
    }
    if (!b->started) {
      b->started = true;
      std::lock_guard<std::mutex> lock(device.mutex);
      g.progress.blockStarted(b->linear);
    }
    t->state = ThreadState::Running;
    tlsThread = t;
    t->self = std::move(t->self).resume();
    tlsThread = nullptr;
    // Read before a retire below, which may end (and free) the grid.
    bool sweep = g.failed();
    if (b->finished())
      noteProgress();
    if (g.abandoned(*b) || b->givenUp) {
      retire(cluster);
    } else if (cluster->finished()) {
      // Its blocks stay resident until the last exits: a peer may still
      // use their shared memory (distributed shared memory, mbarriers).
      retire(cluster);
    } else if (!cluster->hasReady()) {
      // Only its own threads can release a cluster's barriers, its blocks'
      // barriers and warp collectives, and complete its mbarriers: with
      // none left to run, it never finishes.
      g.failCluster(cluster->linear, g.describeDeadlock(*cluster));
      retire(cluster);
    }
    if (sweep) {
      // A failed grid's clusters above its failure are abandoned.
      for (Cluster *d : residentWhere(
               [](const Cluster &r) { return r.grid->abandoned(r); }))
        retire(d);
    }
  }
}

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

Grid::Grid(LaunchParams params, const Config &config, int32_t workerCount)
    : p(std::move(params)), c(config),
      progress(p.kernel, p.grid.count(), p.block.count(), workerCount,
               config.progress < 0    ? LaunchProgress::Mode::Auto
               : config.progress == 0 ? LaunchProgress::Mode::Off
                                      : LaunchProgress::Mode::Always) {
  blockThreads = p.block.count();
  totalBlocks = p.grid.count();
  clusterGrid = {p.grid.x / p.cluster.x, p.grid.y / p.cluster.y,
                 p.grid.z / p.cluster.z};
  totalClusters = clusterGrid.count();
  clusterBlocks = p.cluster.count();
  sharedBytes = sharedWindowBytes(p);
  requested = std::max(1, workerCount);
  workers = int32_t(std::max<int64_t>(
      1, std::min<int64_t>(c.racecheck ? 1 : workerCount, totalClusters)));
  order.resize(blockThreads);
  for (int64_t i = 0; i < blockThreads; ++i)
    order[i] = i;
  // Seed 0 keeps thread order; any other seed permutes the order in which
  // threads start and are released from barriers.
  if (c.seed != 0) {
    BlockRandom shuffle{c.seed};
    std::shuffle(order.begin(), order.end(), shuffle);
  }
  if (c.racecheck)
    races = std::make_unique<RaceDetector>(p, sharedBytes);
  context.params = &p;
  context.config = &c;
  context.blockThreads = blockThreads;
  context.clusterBlocks = clusterBlocks;
  context.sharedBytes = sharedBytes;
  context.onFailure = [this](Thread &t, std::string message) {
    fail(t, std::move(message));
    suspend(t);
  };
  context.onSpin = [this](Thread &t, int32_t site) {
    schedule(t, EXT_EMU_ATOMIC, site);
  };
  context.onAccess = [this](Thread &t, int64_t addr, int64_t bytes,
                            int32_t kind, int32_t site) {
    recordRace(t, addr, bytes, kind, site);
  };
}

Grid::~Grid() = default;

void Grid::failCluster(int64_t cluster, std::string message) {
  Device &device = Device::get();
  std::lock_guard<std::mutex> lock(device.mutex);
  if (cluster >= failedCluster.load())
    return;
  failedCluster.store(cluster);
  error = "kernel '" + p.kernel + "' (launched at " + p.launchSite +
          "): " + std::move(message);
  device.bump();
}

void Grid::fail(const Thread &t, std::string message) {
  failCluster(t.block->cluster->linear, std::move(message));
}

void Grid::blockPrinted(int64_t block, std::vector<PrintedLine> lines) {
  printedBlocks[block] = std::move(lines);
  while (!printedBlocks.empty() &&
         printedBlocks.begin()->first == nextPrinted) {
    std::vector<PrintedLine> &ready = printedBlocks.begin()->second;
    std::stable_sort(ready.begin(), ready.end(),
                     [](const PrintedLine &x, const PrintedLine &y) {
                       return std::tie(x.warp, x.sequence, x.lane) <
                              std::tie(y.warp, y.sequence, y.lane);
                     });
    for (const PrintedLine &line : ready)
      std::fwrite(line.text.data(), 1, line.text.size(), stdout);
    printedBlocks.erase(printedBlocks.begin());
    ++nextPrinted;
  }
}

void Grid::print(Thread &t, std::string text) {
  t.block->printed.push_back({t.warp, t.lane, t.printCount++, std::move(text)});
}

void Grid::flushAllPrinted() {
  // After a failure, blocks that never ran leave gaps: what the others
  // printed still comes out, in block order.
  while (!printedBlocks.empty()) {
    nextPrinted = printedBlocks.begin()->first;
    blockPrinted(nextPrinted, std::move(printedBlocks.begin()->second));
  }
  std::fflush(stdout);
}

void Grid::finish() {
  progress.finish();
  flushAllPrinted();
  if (error.empty() && races && !races->empty())
    error = "kernel '" + p.kernel + "' (launched at " + p.launchSite +
            "): " + races->summary();
  if (error.empty() && c.bankConflicts) {
    BankCounter total(blockThreads);
    for (auto &[worker, counter] : banks)
      total.merge(*counter);
    std::fputs(total.report(p.kernel, p.sites).c_str(), stderr);
  }
  event->error = error;
}

std::string Grid::describeDeadlock(const Cluster &c) const {
  std::string text = "deadlock: no thread can continue";
  if (clusterBlocks > 1)
    text += " in cluster " + formatDim(c.id) + " (" +
            std::to_string(c.arrived) + " of " +
            std::to_string(clusterBlocks * blockThreads) +
            " threads arrived at its cluster barrier)";
  for (const Block *b : c.blocks) {
    // (kind, site) -> n; kinds: -1 the cluster's barrier, 0 the block's
    // barrier, 1 a warp collective, 1 + id a named barrier.
    std::map<std::pair<int, int32_t>, int64_t> waits;
    for (int64_t i = 0; i < blockThreads; ++i) {
      const Thread &t = b->threads[i];
      if (t.state == ThreadState::AtBarrier)
        ++waits[{t.barrierId ? 1 + t.barrierId : 0, t.site}];
      else if (t.state == ThreadState::AtWarpSync)
        ++waits[{1, t.site}];
      else if (t.state == ThreadState::AtClusterBarrier)
        ++waits[{-1, t.site}];
    }
    text += "; in block " + formatDim(b->id) + ":";
    bool first = true;
    for (auto &[key, n] : waits) {
      std::string what =
          key.first == -1  ? "cluster barrier (barrier.cluster.wait)"
          : key.first == 0 ? "gpu.barrier"
          : key.first == 1 ? "warp collective"
                           : "named barrier " + std::to_string(key.first - 1);
      text += std::string(first ? " " : ", ") + std::to_string(n) +
              " thread" + (n == 1 ? "" : "s") +
              (n == 1 ? " waits" : " wait") + " at the " + what + " at " +
              site(key.second);
      first = false;
    }
    if (b->exited)
      text += std::string(first ? " " : ", ") + std::to_string(b->exited) +
              " exited";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

Event *launchAsync(const LaunchParams &params, const Config &config,
                   const std::vector<int64_t> &argBytes,
                   const std::vector<Event *> &deps, std::string &error,
                   bool sync) {
  error = validateLaunch(params);
  if (!error.empty())
    return nullptr;
  int32_t workers = config.threads > 0 ? config.threads
                                       : Device::defaultWorkers();
  auto grid = std::make_unique<Grid>(params, config, workers);
  // The arguments' values, copied: the host's slots may be reused before
  // an asynchronous launch starts.
  if (!argBytes.empty()) {
    grid->argValues.resize(argBytes.size());
    grid->argPointers.resize(argBytes.size());
    for (size_t i = 0; i < argBytes.size(); ++i) {
      const char *from = static_cast<const char *>(params.args[i]);
      grid->argValues[i].assign(from, from + argBytes[i]);
      grid->argPointers[i] = grid->argValues[i].data();
    }
    grid->p.args = grid->argPointers.data();
  }
  return Device::get().submit(std::move(grid), deps, sync);
}

Event *joinEvents(const std::vector<Event *> &deps) {
  return Device::get().join(deps);
}

std::string waitEvents(const std::vector<Event *> &events) {
  return Device::get().wait(events);
}

std::string launch(const LaunchParams &params, const Config &config) {
  std::string error;
  Event *e = launchAsync(params, config, {}, {}, error, /*sync=*/true);
  if (!e)
    return error;
  error = waitEvents({e});
  Device::get().release(e);
  return error;
}

void Grid::suspend(Thread &t) {
  t.scheduler = std::move(t.scheduler).resume();
}

void Grid::push(Thread &t) {
  t.block->ready.push_back(&t);
  ++t.block->worker->readyCount;
}

void Grid::yield(Thread &t) {
  t.state = ThreadState::Ready;
  push(t);
  suspend(t);
}

void Grid::releaseBarrier(Block &b) {
  ++b.barriers;
  ++b.syncs;
  // Every thread now follows every wait before the barrier.
  b.wgmmaRetiredChunks.clear();
  b.bulkRetiredChunks.clear();
  for (int64_t i : order) {
    Thread &t = b.threads[i];
    if (t.state == ThreadState::AtBarrier) {
      t.state = ThreadState::Ready;
      push(t);
    }
  }
  b.atBarrier = 0;
  b.barrierSite = -1;
  RaceDetector::barrierReleased(b.race);
  b.worker->noteProgress();
}

void Grid::barrier(Thread &t, int32_t site) {
  Block &b = *t.block;
  maybeLandEarly(t);
  // Committed groups may stay in flight across a barrier (a pipelined
  // k-loop's wait_group 1): what they read stays guarded by the in-flight
  // operand check, their accumulators by the read check.
  if (t.wgmmaIssued)
    fail(t, where(t) + " reached the gpu.barrier at " + this->site(site) +
         " with warpgroup MMAs it has not committed (wgmma.commit_group, "
         "then wgmma.wait_group)");
  if (b.atBarrier > 0 && b.barrierSite != site) {
    fail(t, where(t) + " reached the gpu.barrier at " + this->site(site) +
         " while other threads of its block wait at the gpu.barrier at " +
         this->site(b.barrierSite) +
         "; every thread of a block must reach the same barrier");
    suspend(t);
    return;
  }
  t.state = ThreadState::AtBarrier;
  t.site = site;
  b.barrierSite = site;
  ++b.atBarrier;
  if (b.exited > 0) {
    const Thread &gone = b.threads[b.firstExited];
    fail(t, where(t) + " waits at the gpu.barrier at " + this->site(site) +
         ", but " + where(gone) +
         " has already exited; every thread of a block must reach each "
         "barrier");
    suspend(t);
    return;
  }
  if (b.atBarrier == blockThreads)
    releaseBarrier(b);
  suspend(t);
}

void Grid::namedBarrier(Thread &t, int32_t id, int32_t count, int32_t site) {
  Block &b = *t.block;
  maybeLandEarly(t);
  if (id < 1 || id > 15 || count < 1 || count % c.warpSize ||
      count > blockThreads) {
    fail(t, where(t) + ": bar.sync " + std::to_string(id) + ", " +
                std::to_string(count) + " at " + this->site(site) +
                " (needs a barrier 1 to 15 and a thread count that is a "
                "multiple of the warp size, at most the block's " +
                std::to_string(blockThreads) + ")");
    suspend(t);
    return;
  }
  if (t.wgmmaIssued)
    fail(t, where(t) + " reached the barrier at " + this->site(site) +
         " with warpgroup MMAs it has not committed (wgmma.commit_group, "
         "then wgmma.wait_group)");
  Block::NamedBarrier &nb = b.namedBarriers[id];
  if (!nb.waiting.empty() && nb.count != count) {
    fail(t, where(t) + ": bar.sync " + std::to_string(id) + ", " +
                std::to_string(count) + " at " + this->site(site) +
                " while " + std::to_string(nb.waiting.size()) +
                " threads wait at barrier " + std::to_string(id) + " for " +
                std::to_string(nb.count));
    suspend(t);
    return;
  }
  nb.count = count;
  t.state = ThreadState::AtBarrier;
  t.site = site;
  t.barrierId = id;
  nb.waiting.push_back(&t);
  if (int64_t(nb.waiting.size()) == count) {
    // Each now follows the others' waits: what any of them knew of retired
    // MMAs, all of them know.
    MBarrier knowledge;
    for (Thread *w : nb.waiting)
      wgmma.publishRetirement(*w, knowledge);
    knowledge.released = std::move(knowledge.releasing);
    for (Thread *w : nb.waiting) {
      WarpgroupMmaUnit::learnRetirement(*w, knowledge);
      w->barrierId = 0;
      w->state = ThreadState::Ready;
      push(*w);
    }
    nb.waiting.clear();
    ++b.syncs;
    RaceDetector::barrierReleased(b.race);
    b.worker->noteProgress();
  }
  suspend(t);
}

void Grid::clusterArrive(Thread &t, bool relaxed, int32_t site) {
  Cluster &cl = *t.block->cluster;
  maybeLandEarly(t);
  if (t.clusterArrived) {
    fail(t, where(t) + ": barrier.cluster.arrive at " + this->site(site) +
                " arrives again before it waited (barrier.cluster.wait) "
                "for the phase it arrived in at " +
                this->site(t.clusterSite) +
                "; a thread arrives once per phase of the cluster barrier");
    suspend(t);
    return;
  }
  t.clusterArrived = true;
  t.clusterPhase = cl.phase;
  t.clusterSite = site;
  // A release (not .relaxed) passes on what the thread knows, as an
  // mbarrier arrival does.
  if (relaxed)
    ++cl.relaxedArrivals[size_t(t.block->rank)];
  else
    wgmma.publishRetirement(t, cl.knowledge);
  if (++cl.arrived == clusterBlocks * blockThreads)
    releaseClusterBarrier(cl);
}

void Grid::clusterWait(Thread &t, int32_t site) {
  Cluster &cl = *t.block->cluster;
  maybeLandEarly(t);
  if (!t.clusterArrived) {
    fail(t, where(t) + ": barrier.cluster.wait at " + this->site(site) +
                " without a barrier.cluster.arrive before it (since its "
                "last wait): it would wait for a phase it is not part of");
    suspend(t);
    return;
  }
  if (cl.phase == t.clusterPhase) {
    t.state = ThreadState::AtClusterBarrier;
    t.site = site;
    suspend(t);
  }
  t.clusterArrived = false;
  WarpgroupMmaUnit::learnRetirement(t, cl.knowledge);
}

void Grid::releaseClusterBarrier(Cluster &cl) {
  ++cl.phase;
  cl.arrived = 0;
  cl.knowledge.released = std::move(cl.knowledge.releasing);
  cl.knowledge.releasing.clear();
  // Each block whose threads all arrived with release semantics has its
  // accesses before the barrier ordered before every block's after it.
  if (races) {
    std::vector<std::pair<int64_t, BlockRaceState *>> ordered;
    for (Block *b : cl.blocks)
      if (cl.relaxedArrivals[size_t(b->rank)] == 0)
        ordered.push_back({b->linear, &b->race});
    races->clusterBarrierReleased(ordered);
  }
  for (Block *b : cl.blocks) {
    cl.relaxedArrivals[size_t(b->rank)] = 0;
    // Every thread of the block passed it: it orders mbarrier inits as a
    // block barrier does.
    ++b->barriers;
    ++b->syncs;
    for (int64_t i : order) {
      Thread &w = b->threads[i];
      if (w.state == ThreadState::AtClusterBarrier) {
        w.state = ThreadState::Ready;
        push(w);
      }
    }
  }
  cl.blocks.front()->worker->noteProgress();
}

/// Releases every pending collective of the warp that all its live
/// participants have reached.
void Grid::checkWarpRelease(Block &b, int32_t warpIndex) {
  Warp &w = b.warps[warpIndex];
  int64_t first = int64_t(warpIndex) * c.warpSize;
  int64_t end = std::min<int64_t>(first + c.warpSize, blockThreads);
  for (size_t c = 0; c < w.pending.size();) {
    Collective &coll = w.pending[c];
    uint64_t expected = 0;
    for (int64_t i = first; i < end; ++i) {
      const Thread &t = b.threads[i];
      if (t.lane < coll.width && t.state != ThreadState::Done)
        expected |= uint64_t(1) << t.lane;
    }
    if (coll.arrived != expected) {
      ++c;
      continue;
    }
    for (int64_t i = first; i < end; ++i) {
      Thread &t = b.threads[i];
      if (coll.arrived & (uint64_t(1) << t.lane)) {
        t.syncMask = int64_t(coll.arrived);
        t.state = ThreadState::Ready;
        push(t);
      }
    }
    w.pending.erase(w.pending.begin() + c);
    b.worker->noteProgress();
  }
}

int64_t Grid::warpSync(Thread &t, int32_t site, int32_t width) {
  if (t.lane >= width)
    return int64_t(1) << t.lane;
  Block &b = *t.block;
  Warp &w = b.warps[t.warp];
  uint64_t bit = uint64_t(1) << t.lane;
  auto it = std::find_if(w.pending.begin(), w.pending.end(),
                         [&](const Collective &c) {
                           return c.width == width && !(c.arrived & bit);
                         });
  if (it == w.pending.end()) {
    w.pending.push_back({width, site, 0});
    it = w.pending.end() - 1;
  }
  it->arrived |= bit;
  t.state = ThreadState::AtWarpSync;
  t.site = site;
  checkWarpRelease(b, t.warp);
  suspend(t);
  return t.syncMask;
}

//===--------------------------------------------------------------------===//
// Race detection
//===--------------------------------------------------------------------===//

/// Whether an access of `bytes` at `offset` breaks the natural alignment a
/// GPU requires of a 2-, 4-, 8- or 16-byte load, store or copy.
static bool misaligned(int64_t offset, int64_t bytes) {
  return bytes > 1 && bytes <= 16 && (bytes & (bytes - 1)) == 0 &&
         offset % bytes != 0;
}

void Grid::failMisaligned(Thread &t, int64_t bytes, const char *what,
                                    int32_t site, const std::string &detail) {
  fail(t, where(t) + ": the " + std::to_string(bytes) + "-byte " + what + " at " +
       this->site(site) + " is misaligned (" + detail + ")");
  suspend(t);
}

void Grid::access(Thread &t, int64_t addr, int64_t bytes,
                            int32_t kind, int32_t site) {
  schedule(t, kind, site);
  if ((kind & EXT_EMU_WORKGROUP) && (kind & EXT_EMU_STORE) &&
      !(kind & EXT_EMU_FENCE)) {
    Block &b = *t.block;
    if (b.hasWgmmaReads())
      wgmma.checkOperandWrite(t, addr, bytes, site, "writes");
    if (b.hasBulkReads())
      bulkStores.checkSourceWrite(t, addr, bytes, site, "writes");
    if (b.proxyTracking)
      bulkStores.recordGenericWrite(t, addr, bytes, site);
  }
  // A misaligned ld.shared.v4 (or ld.global.v4) faults on a GPU; the CPU
  // would not notice. Global accesses reach here under racecheck.
  bool shared = kind & EXT_EMU_WORKGROUP;
  int64_t offset =
      shared ? addr - reinterpret_cast<int64_t>(t.block->shared) : addr;
  if (!(kind & EXT_EMU_FENCE) && misaligned(offset, bytes)) {
    std::string at = "workgroup byte " + std::to_string(offset);
    if (!shared) {
      at = "address " + std::to_string(addr);
      for (const LaunchParams::Buffer &b : p.buffers)
        if (!b.shared && addr >= b.start && addr - b.start < b.bytes)
          at = "byte " + std::to_string(addr - b.start) + " of " + b.name;
    }
    failMisaligned(
        t, bytes, shared ? "shared-memory access" : "global-memory access",
        site,
        at + "; a GPU requires " + std::to_string(bytes) + "-byte alignment");
    return;
  }
  // The access happens when the thread resumes from its yield point (no
  // other thread runs until its next one): record it now, so that what an
  // atomic acquires is what the value it reads was released with.
  // A workgroup load, store or atomic (not a fence): one lane of a request.
  if (t.block->banks && (kind & EXT_EMU_WORKGROUP) &&
      !(kind & EXT_EMU_FENCE) && bytes > 0)
    t.block->banks->record(t.block->linear, t.linear, site,
                  addr - reinterpret_cast<int64_t>(t.block->shared), bytes);
  recordRace(t, addr, bytes, kind, site);
  maybeLandEarly(t);
}

void Grid::recordRace(Thread &t, int64_t addr, int64_t bytes,
                                int32_t kind, int32_t site) {
  if (!races || failed())
    return;
  Block &b = *t.block;
  races->recordAccess({uint32_t(b.linear * blockThreads + t.linear), b.linear,
                       b.race, b.shared, t.stackTop,
                       b.worker->poolFor(c.stackBytes).usableBytes()},
                      addr, bytes, kind, site);
}

void Grid::land(Thread &t, const AsyncCopy &copy) {
  if (!t.block->wgmmaReadChunks.empty())
    wgmma.checkOperandWrite(t, reinterpret_cast<int64_t>(copy.dst),
                           copy.dstBytes, copy.site,
                           "lands an asynchronous copy into",
                           /*byThread=*/false);
  if (!t.block->bulkReads.empty())
    bulkStores.checkSourceWrite(t, reinterpret_cast<int64_t>(copy.dst),
                         copy.dstBytes, copy.site,
                         "lands an asynchronous copy into",
                         /*byThread=*/false);
  if (copy.srcBytes > 0) {
    recordRace(t, reinterpret_cast<int64_t>(copy.src), copy.srcBytes,
               EXT_EMU_GLOBAL | EXT_EMU_LOAD, copy.site);
    std::memcpy(copy.dst, copy.src, size_t(copy.srcBytes));
  }
  if (copy.dstBytes > copy.srcBytes)
    std::memset(copy.dst + copy.srcBytes, 0,
                size_t(copy.dstBytes - copy.srcBytes));
  recordRace(t, reinterpret_cast<int64_t>(copy.dst), copy.dstBytes,
             EXT_EMU_WORKGROUP | EXT_EMU_STORE, copy.site);
  // cp.async writes through the generic proxy: a bulk store reading these
  // bytes needs the issuing thread's fence.proxy.async after it landed.
  if (t.block->proxyTracking)
    bulkStores.recordGenericWrite(t, reinterpret_cast<int64_t>(copy.dst), copy.dstBytes,
                       copy.site);
}

void Grid::maybeLandEarly(Thread &t) {
  if (!t.bulkOpen.empty() || !t.bulkGroups.empty())
    bulkStores.landEarly(t);
  // Seed 0 lands every copy as late as the program allows (at the wait that
  // covers it), which shows a missing or weak wait most surely; other seeds
  // also try earlier points.
  // Empty groups (a commit with no copies) have nothing to land.
  while (!t.copyGroups.empty() && t.copyGroups.front().empty())
    t.copyGroups.pop_front();
  if (c.seed == 0 || (t.copyGroups.empty() && t.openCopies.empty()) ||
      t.block->rng() % 4 != 0)
    return;
  if (!t.copyGroups.empty()) {
    std::vector<AsyncCopy> &oldest = t.copyGroups.front();
    land(t, oldest.front());
    oldest.erase(oldest.begin());
    if (oldest.empty())
      t.copyGroups.pop_front();
    return;
  }
  land(t, t.openCopies.front());
  t.openCopies.erase(t.openCopies.begin());
}

void Grid::asyncCopy(Thread &t, int64_t dst, int64_t src,
                               int64_t dstBytes, int64_t srcBytes,
                               int32_t site) {
  if (srcBytes < 0 || srcBytes > dstBytes) {
    fail(t, where(t) + ": the asynchronous copy at " + this->site(site) +
         " reads " + std::to_string(srcBytes) + " bytes into " +
         std::to_string(dstBytes));
    suspend(t);
    return;
  }
  // cp.async needs both addresses aligned to its size.
  int64_t dstOffset = dst - reinterpret_cast<int64_t>(t.block->shared);
  if (misaligned(dstOffset, dstBytes) ||
      (srcBytes > 0 && misaligned(src, dstBytes))) {
    failMisaligned(t, dstBytes, "asynchronous copy", site,
                   "workgroup byte " + std::to_string(dstOffset) +
                       ", global address " + std::to_string(src));
    return;
  }
  // The copy may land as soon as it is issued: into bytes an MMA in flight
  // reads, that is a write under the MMA whenever it would land.
  if (t.block->hasWgmmaReads())
    wgmma.checkOperandWrite(t, dst, dstBytes, site,
                           "issues an asynchronous copy into");
  if (t.block->hasBulkReads())
    bulkStores.checkSourceWrite(t, dst, dstBytes, site,
                         "issues an asynchronous copy into");
  // The copy's shared-memory write is one lane of a warp-wide request, as
  // a store's is (cp.async writes through the same banks).
  if (t.block->banks && dstBytes > 0)
    t.block->banks->record(t.block->linear, t.linear, site, dstOffset, dstBytes);
  t.openCopies.push_back({reinterpret_cast<char *>(dst),
                          reinterpret_cast<const char *>(src), dstBytes,
                          srcBytes, site});
  maybeLandEarly(t);
}

void Grid::asyncCommit(Thread &t) {
  t.copyGroups.push_back(std::move(t.openCopies));
  t.openCopies.clear();
}

void Grid::asyncWait(Thread &t, int32_t pending, int32_t site) {
  (void)site;
  while (t.copyGroups.size() > size_t(std::max(pending, 0))) {
    for (const AsyncCopy &copy : t.copyGroups.front())
      land(t, copy);
    t.copyGroups.pop_front();
  }
}

void Grid::schedule(Thread &t, int32_t kind, int32_t site) {
  Worker &w = *t.block->worker;
  bool spin = kind & (EXT_EMU_ATOMIC | EXT_EMU_FENCE);
  if (!spin) {
    w.noteProgress();
    if (c.policy == Policy::Sequential)
      return;
  } else {
    // Where blocks may wait on each other: let another block run (of the
    // cluster, and another cluster).
    w.switchBlock = true;
    t.block->cluster->switchBlock = true;
  }
  bool afterFailure = failed();
  uint64_t limit = afterFailure
                       ? std::min(c.spinLimit, kSpinLimitAfterFailure)
                       : c.spinLimit;
  // A spin here may wait for a block on another worker: only no progress
  // anywhere is a livelock.
  if (spin && ++w.spins > limit && !w.admitBeyondShare() &&
      !w.othersProgressed()) {
    if (afterFailure) {
      // Waiting for what a lower block's failure stopped: the launch's
      // error is that failure, not this wait.
      t.block->givenUp = true;
      suspend(t);
      return;
    }
    int64_t resident;
    {
      std::lock_guard<std::mutex> lock(Device::get().mutex);
      resident = Device::get().residentThreads / blockThreads;
    }
    fail(t, "no progress after " + std::to_string(c.spinLimit) +
                " consecutive yields at atomics and fences (last at " +
                this->site(site) + " in " + where(t) +
                "): " +
                (t.waitingFor.empty()
                     ? std::string("a spin-wait that is never satisfied? ")
                     : "it waits for " + t.waitingFor + ". ") +
                std::to_string(resident) + " of " +
                std::to_string(totalBlocks) +
                " blocks are resident (at most " +
                std::to_string(c.maxResidentThreads) + " threads)");
    suspend(t);
    return;
  }
  if (spin && w.spins > limit)
    w.spins = 0;
  yield(t);
}

void Grid::assertFailed(Thread &t, const std::string &message,
                                  int32_t site) {
  fail(t, where(t) + ": assertion failed at " + this->site(site) + ": " + message);
  suspend(t);
}

void Grid::instructionFailed(Thread &t, int32_t site,
                                       std::string message) {
  fail(t, where(t) + ": " + this->site(site) + ": " + std::move(message));
  message = std::string();
  suspend(t);
  // The launch has failed: the scheduler never resumes `t`.
  __builtin_unreachable();
}

void Grid::onExit(Thread &t) {
  Block &b = *t.block;
  // Copies still in flight land before the thread is gone, and so do its
  // bulk stores (a kernel's end completes them).
  asyncCommit(t);
  asyncWait(t, 0, -1);
  if (!t.bulkOpen.empty() || !t.bulkGroups.empty())
    bulkStores.completeAll(t);
  if (t.wgmmaIssued || t.wgmmaGroups)
    fail(t, where(t) + " exited with warpgroup MMAs it has not waited for "
                    "(wgmma.commit_group, then wgmma.wait_group 0)");
  t.state = ThreadState::Done;
  if (b.exited++ == 0)
    b.firstExited = t.linear;
  b.worker->noteProgress();
  if (b.atBarrier > 0)
    fail(t, where(t) + " exited while " + std::to_string(b.atBarrier) +
         " other thread" +
         (b.atBarrier == 1 ? " of its block waits" : "s of its block wait") +
         " at the gpu.barrier at " + site(b.barrierSite) +
         "; every thread of a block must reach each barrier");
  checkWarpRelease(b, t.warp);
}
void Grid::nameShared(Thread &t, const char *name, int64_t addr,
                                int64_t bytes) {
  if (races)
    races->nameShared(t.block->shared, name, addr, bytes);
}

} // namespace ext::emu
