//===- FiberScheduler.cpp - GPU threads as cooperative fibers -------------===//

#include "FiberScheduler.h"
#include "DeadlockReport.h"
#include "StackPool.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace ext::emu {

namespace bctx = boost::context;

namespace {

thread_local Thread *tlsThread = nullptr;

/// After an error in a lower block, a block spinning this long without
/// progress anywhere is waiting for something the failure stopped.
constexpr uint64_t kSpinLimitAfterFailure = uint64_t(1) << 16;

} // namespace

Thread *currentThread() { return tlsThread; }

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
  block->threadCount = n;
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
  Block *block = current->pickBlock(current->grid->c.policy);
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
  g.printed.blockDone(b->linear, std::move(b->printed));
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
        c->grid->failCluster(c->linear,
                             describeDeadlock(c->grid->units(), *c));
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
      g.failCluster(cluster->linear, describeDeadlock(g.units(), *cluster));
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
  context.threadOrder = &order;
  context.races = races.get();
  context.onFailure = [this](Thread &t, std::string message) {
    fail(t, std::move(message));
  };
  context.onReady = [this](Thread &t) { push(t); };
  context.onProgress = [](Block &b) { b.worker->noteProgress(); };
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

void Grid::finish() {
  progress.finish();
  printed.flushAll();
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

void Grid::push(Thread &t) {
  t.block->ready.push_back(&t);
  ++t.block->worker->readyCount;
}

void Grid::yield(Thread &t) {
  t.state = ThreadState::Ready;
  push(t);
  UnitContext::park(t);
}

//===--------------------------------------------------------------------===//
// Race detection
//===--------------------------------------------------------------------===//

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
    context.failMisaligned(
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
  copies.maybeLandEarly(t);
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
      UnitContext::park(t);
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
    UnitContext::park(t);
    return;
  }
  if (spin && w.spins > limit)
    w.spins = 0;
  yield(t);
}

void Grid::assertFailed(Thread &t, const std::string &message,
                                  int32_t site) {
  fail(t, where(t) + ": assertion failed at " + this->site(site) + ": " + message);
  UnitContext::park(t);
}

void Grid::instructionFailed(Thread &t, int32_t site,
                                       std::string message) {
  fail(t, where(t) + ": " + this->site(site) + ": " + std::move(message));
  message = std::string();
  UnitContext::park(t);
  // The launch has failed: the scheduler never resumes `t`.
  __builtin_unreachable();
}

void Grid::onExit(Thread &t) {
  Block &b = *t.block;
  // Copies still in flight land before the thread is gone, and so do its
  // bulk stores (a kernel's end completes them).
  copies.commitCopies(t);
  copies.waitCopies(t, 0);
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
  barriers.releaseWarp(b, t.warp);
}
void Grid::nameShared(Thread &t, const char *name, int64_t addr,
                                int64_t bytes) {
  if (races)
    races->nameShared(t.block->shared, name, addr, bytes);
}

} // namespace ext::emu
