//===- Emulator.cpp - run GPU grids as cooperative fibers -----------------===//

#include "Emulator.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <boost/context/fiber.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>
#include <unordered_map>

namespace ext::emu {
namespace {
namespace bctx = boost::context;

//===----------------------------------------------------------------------===//
// Stacks
//===----------------------------------------------------------------------===//

/// mmap'd stacks with a guard page below each (an overflow faults instead of
/// corrupting a neighbour), kept for reuse: a launch creates a fiber per
/// thread per block, and mmap per fiber would dominate small kernels.
class StackPool {
public:
  explicit StackPool(size_t usable) {
    page = size_t(sysconf(_SC_PAGESIZE));
    this->usable = (usable + page - 1) / page * page;
  }
  ~StackPool() {
    for (void *base : free)
      munmap(base, usable + page);
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
    }
    bctx::stack_context sctx;
    sctx.size = usable;
    sctx.sp = static_cast<char *>(base) + page + usable;
    return sctx;
  }
  void deallocate(bctx::stack_context &sctx) noexcept {
    free.push_back(static_cast<char *>(sctx.sp) - sctx.size - page);
  }
  size_t usableBytes() const { return usable; }

private:
  size_t page, usable;
  std::vector<void *> free;
};

/// The allocator handle a fiber copies into its control block.
struct PoolAllocator {
  StackPool *pool;
  bctx::stack_context allocate() { return pool->allocate(); }
  void deallocate(bctx::stack_context &sctx) noexcept {
    pool->deallocate(sctx);
  }
};

thread_local std::unique_ptr<StackPool> tlsPool;

StackPool &stackPool(size_t usable) {
  if (!tlsPool || tlsPool->usableBytes() < usable)
    tlsPool = std::make_unique<StackPool>(usable);
  return *tlsPool;
}

//===----------------------------------------------------------------------===//
// Grid state
//===----------------------------------------------------------------------===//

enum class State { Ready, Running, AtBarrier, AtWarpSync, Done };

struct Launch;
struct Block;
using SmallBlocks = std::vector<Block *>;

struct Thread {
  Launch *launch = nullptr;
  Block *block = nullptr;
  Dim3 id;
  int64_t linear = 0;
  int32_t lane = 0, warp = 0;
  State state = State::Ready;
  /// The site of the barrier or collective it waits at.
  int32_t site = -1;
  /// The lanes that took part in its last warp collective.
  int64_t syncMask = 0;
  /// The thread's context while suspended, and the scheduler's while the
  /// thread runs.
  bctx::fiber self, scheduler;
  /// Racecheck: the top of its stack (private memory is never shadowed).
  char *stackTop = nullptr;
};

//===----------------------------------------------------------------------===//
// Race detection shadow
//===----------------------------------------------------------------------===//

/// One recorded access to a byte.
struct Access {
  int32_t site = -1; // -1: none
  uint32_t gtid = 0; // grid-linear thread id
  uint32_t epoch = 0; // barrier epoch of its block
  uint32_t clock = 0; // its block's release clock at the time
  bool atomic = false;
  bool valid() const { return site >= 0; }
};

/// Per byte: the last write and up to kReaders reads since it.
struct Shadow {
  static constexpr int kReaders = 4;
  Access write;
  Access readers[kReaders];
};

using VectorClock = std::vector<std::pair<uint32_t, uint32_t>>;

void joinInto(VectorClock &into, const VectorClock &from) {
  if (from.empty())
    return;
  VectorClock out;
  out.reserve(into.size() + from.size());
  size_t i = 0, j = 0;
  while (i < into.size() || j < from.size()) {
    if (j == from.size() || (i < into.size() && into[i].first < from[j].first))
      out.push_back(into[i++]);
    else if (i == into.size() || from[j].first < into[i].first)
      out.push_back(from[j++]);
    else {
      out.push_back({into[i].first, std::max(into[i].second, from[j].second)});
      ++i, ++j;
    }
  }
  into.swap(out);
}

void setEntry(VectorClock &vc, uint32_t id, uint32_t clock) {
  auto it = std::lower_bound(vc.begin(), vc.end(), std::make_pair(id, 0u));
  if (it != vc.end() && it->first == id)
    it->second = std::max(it->second, clock);
  else
    vc.insert(it, {id, clock});
}

uint32_t entry(const VectorClock &vc, uint32_t id) {
  auto it = std::lower_bound(vc.begin(), vc.end(), std::make_pair(id, 0u));
  return it != vc.end() && it->first == id ? it->second : 0;
}

enum class RaceKind { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };

/// A deduplicated race: per (kind, memory, earlier site, later site), the
/// first instance and a count.
struct RaceReport {
  RaceKind kind;
  bool shared;
  int64_t where; // workgroup byte offset or global address
  uint32_t firstGtid, secondGtid;
  int32_t firstSite, secondSite;
  uint64_t count = 0;
  uint64_t order = 0;
  uint64_t lastAccess = 0;
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

struct Block {
  Dim3 id;
  int64_t linear = 0;
  std::unique_ptr<Thread[]> threads;
  std::vector<Warp> warps;
  int64_t atBarrier = 0, exited = 0;
  int32_t barrierSite = -1;
  int64_t firstExited = -1;
  char *shared = nullptr, *scratch = nullptr;
  /// Its runnable threads.
  std::deque<Thread *> ready;
  /// Racecheck: barriers passed, the workgroup memory's shadow, the block's
  /// release clock and what it acquired from other blocks (a vector clock
  /// over linear block ids).
  uint32_t epoch = 0;
  std::unique_ptr<Shadow[]> sharedShadow;
  uint32_t clock = 1;
  std::vector<std::pair<uint32_t, uint32_t>> vc;
  ~Block() {
    std::free(shared);
    std::free(scratch);
  }
};

std::string formatDim(const Dim3 &d) {
  std::ostringstream os;
  os << "(" << d.x << ", " << d.y << ", " << d.z << ")";
  return os.str();
}

Dim3 delinearize(int64_t linear, const Dim3 &shape) {
  return {linear % shape.x, (linear / shape.x) % shape.y,
          linear / (shape.x * shape.y)};
}

thread_local Thread *tlsThread = nullptr;
thread_local uint64_t tlsLastSwitches = 0;

struct Launch {
  Launch(const LaunchParams &params, const Config &config)
      : p(params), c(config), rng(config.seed),
        pool(stackPool(config.stackBytes)) {
    blockThreads = p.block.count();
    totalBlocks = p.grid.count();
    sharedBytes = (p.staticShared + 15) / 16 * 16 + p.dynamicShared;
    order.resize(blockThreads);
    for (int64_t i = 0; i < blockThreads; ++i)
      order[i] = i;
    // Seed 0 keeps thread order; any other seed permutes the order in which
    // threads start and are released from barriers.
    if (c.seed != 0)
      std::shuffle(order.begin(), order.end(), rng);
  }

  const LaunchParams &p;
  const Config &c;
  std::mt19937_64 rng;
  StackPool &pool;
  int64_t blockThreads = 0, totalBlocks = 0, sharedBytes = 0;
  std::vector<int64_t> order;
  std::vector<std::unique_ptr<Block>> resident;
  /// Threads switch within `current` at workgroup yield points (only its
  /// threads share that memory, and its stacks stay in cache); the scheduler
  /// moves to another block when asked to (atomics, fences: the points where
  /// blocks can wait on each other) or when `current` has nothing to run.
  Block *current = nullptr;
  bool switchBlock = true;
  int64_t readyCount = 0;
  int64_t nextBlock = 0, residentThreads = 0;
  std::string error;
  uint64_t spins = 0, switches = 0;
  /// Racecheck state: global memory's shadow, the vector clock released at
  /// each atomic's address, and the races found.
  std::unordered_map<uint64_t, Shadow> globalShadow;
  std::unordered_map<uint64_t, VectorClock> syncObjects;
  std::map<std::tuple<int, bool, int32_t, int32_t>, RaceReport> races;
  /// Views of workgroup memory the kernel named: (offset, bytes, name).
  std::set<std::tuple<int64_t, int64_t, std::string>> sharedViews;
  uint64_t raceCount = 0, accessSerial = 0;

  const std::string &site(int32_t index) const {
    static const std::string unknown = "<unknown location>";
    if (index < 0 || size_t(index) >= p.sites.size())
      return unknown;
    return p.sites[index];
  }

  std::string where(const Thread &t) const {
    return "thread " + formatDim(t.id) + " of block " +
           formatDim(t.block->id);
  }

  void fail(std::string message) {
    if (error.empty())
      error = "kernel '" + p.kernel + "' (launched at " + p.launchSite +
              "): " + std::move(message);
  }

  //===--------------------------------------------------------------------===//
  // Scheduler side
  //===--------------------------------------------------------------------===//

  void admitBlocks() {
    while (nextBlock < totalBlocks &&
           (resident.empty() ||
            residentThreads + blockThreads <= c.maxResidentThreads)) {
      auto block = std::make_unique<Block>();
      block->linear = nextBlock++;
      block->id = delinearize(block->linear, p.grid);
      block->threads = std::make_unique<Thread[]>(blockThreads);
      block->warps.resize((blockThreads + EXT_EMU_WARP_SIZE - 1) /
                          EXT_EMU_WARP_SIZE);
      // Workgroup memory starts out as 0xff bytes (NaN, -1): reading what
      // no thread wrote is visible in the results, as garbage is on a GPU.
      block->shared = static_cast<char *>(
          std::aligned_alloc(64, std::max<int64_t>(64, (sharedBytes + 63) /
                                                           64 * 64)));
      std::memset(block->shared, 0xff, sharedBytes);
      if (c.racecheck && sharedBytes > 0)
        block->sharedShadow = std::make_unique<Shadow[]>(sharedBytes);
      block->scratch = static_cast<char *>(std::aligned_alloc(
          64, blockThreads * EXT_EMU_SCRATCH_BYTES_PER_THREAD));
      for (int64_t i = 0; i < blockThreads; ++i) {
        Thread &t = block->threads[i];
        t.launch = this;
        t.block = block.get();
        t.linear = i;
        t.id = delinearize(i, p.block);
        t.lane = int32_t(i % EXT_EMU_WARP_SIZE);
        t.warp = int32_t(i / EXT_EMU_WARP_SIZE);
        Thread *tp = &t;
        t.self = bctx::fiber(std::allocator_arg, PoolAllocator{&pool},
                             [tp](bctx::fiber &&scheduler) {
                               tp->scheduler = std::move(scheduler);
                               tp->stackTop = static_cast<char *>(
                                   __builtin_frame_address(0));
                               tp->launch->p.trampoline(tp->launch->p.args);
                               tp->launch->onExit(*tp);
                               return std::move(tp->scheduler);
                             });
      }
      for (int64_t i : order)
        push(block->threads[i]);
      residentThreads += blockThreads;
      resident.push_back(std::move(block));
    }
  }

  void push(Thread &t) {
    t.block->ready.push_back(&t);
    ++readyCount;
  }

  Block *chooseBlock() {
    if (c.policy == Policy::Random) {
      SmallBlocks candidates;
      for (auto &b : resident)
        if (!b->ready.empty())
          candidates.push_back(b.get());
      return candidates[size_t(rng() % candidates.size())];
    }
    // The next block with work after `current`, in admission order.
    size_t n = resident.size(), start = 0;
    for (size_t i = 0; i < n; ++i)
      if (resident[i].get() == current)
        start = i + 1;
    for (size_t k = 0; k < n; ++k) {
      Block *b = resident[(start + k) % n].get();
      if (!b->ready.empty())
        return b;
    }
    return nullptr; // unreachable: readyCount > 0
  }

  Thread *pick() {
    if (!current || current->ready.empty() || switchBlock)
      current = chooseBlock();
    switchBlock = false;
    std::deque<Thread *> &ready = current->ready;
    Thread *t;
    if (c.policy == Policy::Random) {
      size_t index = size_t(rng() % ready.size());
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

  void retireFinishedBlocks() {
    auto done = [&](const std::unique_ptr<Block> &b) {
      return b->exited == blockThreads;
    };
    size_t before = resident.size();
    if (current && current->exited == blockThreads)
      current = nullptr;
    resident.erase(std::remove_if(resident.begin(), resident.end(), done),
                   resident.end());
    residentThreads -= int64_t(before - resident.size()) * blockThreads;
  }

  std::string describeDeadlock() const {
    std::ostringstream os;
    os << "deadlock: no thread can continue";
    int shown = 0;
    for (const auto &b : resident) {
      std::map<std::pair<int, int32_t>, int64_t> waits; // (kind, site) -> n
      for (int64_t i = 0; i < blockThreads; ++i) {
        const Thread &t = b->threads[i];
        if (t.state == State::AtBarrier)
          ++waits[{0, t.site}];
        else if (t.state == State::AtWarpSync)
          ++waits[{1, t.site}];
      }
      if (waits.empty())
        continue;
      if (shown++ == 4) {
        os << "; ...";
        break;
      }
      os << "; in block " << formatDim(b->id) << ":";
      bool first = true;
      for (auto &[key, n] : waits) {
        os << (first ? " " : ", ") << n << " thread" << (n == 1 ? "" : "s")
           << (n == 1 ? " waits" : " wait") << " at the "
           << (key.first == 0 ? "gpu.barrier" : "warp collective") << " at "
           << site(key.second);
        first = false;
      }
      if (b->exited)
        os << ", " << b->exited << " exited";
    }
    return os.str();
  }

  void abandonSuspendedThreads() {
    // Destroying a suspended fiber would unwind through kernel frames that
    // have no unwind tables; leak them instead (the process is about to
    // report and stop).
    for (auto &b : resident)
      for (int64_t i = 0; i < blockThreads; ++i)
        if (b->threads[i].self)
          new bctx::fiber(std::move(b->threads[i].self));
    resident.clear();
  }

  std::string run() {
    admitBlocks();
    while (error.empty()) {
      if (readyCount == 0) {
        if (resident.empty() && nextBlock == totalBlocks)
          break;
        fail(describeDeadlock());
        break;
      }
      Thread *t = pick();
      t->state = State::Running;
      tlsThread = t;
      t->self = std::move(t->self).resume();
      tlsThread = nullptr;
      ++switches;
      if (t->state == State::Done && t->block->exited == blockThreads) {
        retireFinishedBlocks();
        admitBlocks();
      }
    }
    if (!error.empty())
      abandonSuspendedThreads();
    else if (c.racecheck && !races.empty())
      fail(raceSummary());
    tlsLastSwitches = switches;
    return error;
  }

  //===--------------------------------------------------------------------===//
  // Thread side (runs on a fiber)
  //===--------------------------------------------------------------------===//

  void suspend(Thread &t) { t.scheduler = std::move(t.scheduler).resume(); }

  void yield(Thread &t) {
    t.state = State::Ready;
    push(t);
    suspend(t);
  }

  void releaseBarrier(Block &b) {
    for (int64_t i : order) {
      Thread &t = b.threads[i];
      if (t.state == State::AtBarrier) {
        t.state = State::Ready;
        push(t);
      }
    }
    b.atBarrier = 0;
    b.barrierSite = -1;
    ++b.epoch;
    spins = 0;
  }

  void barrier(Thread &t, int32_t site) {
    Block &b = *t.block;
    if (b.atBarrier > 0 && b.barrierSite != site) {
      fail(where(t) + " reached the gpu.barrier at " + this->site(site) +
           " while other threads of its block wait at the gpu.barrier at " +
           this->site(b.barrierSite) +
           "; every thread of a block must reach the same barrier");
      suspend(t);
      return;
    }
    t.state = State::AtBarrier;
    t.site = site;
    b.barrierSite = site;
    ++b.atBarrier;
    if (b.exited > 0) {
      const Thread &gone = b.threads[b.firstExited];
      fail(where(t) + " waits at the gpu.barrier at " + this->site(site) +
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

  /// Releases every pending collective of the warp that all its live
  /// participants have reached.
  void checkWarpRelease(Block &b, int32_t warpIndex) {
    Warp &w = b.warps[warpIndex];
    int64_t first = int64_t(warpIndex) * EXT_EMU_WARP_SIZE;
    int64_t end = std::min<int64_t>(first + EXT_EMU_WARP_SIZE, blockThreads);
    for (size_t c = 0; c < w.pending.size();) {
      Collective &coll = w.pending[c];
      uint64_t expected = 0;
      for (int64_t i = first; i < end; ++i) {
        const Thread &t = b.threads[i];
        if (t.lane < coll.width && t.state != State::Done)
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
          t.state = State::Ready;
          push(t);
        }
      }
      w.pending.erase(w.pending.begin() + c);
      spins = 0;
    }
  }

  int64_t warpSync(Thread &t, int32_t site, int32_t width) {
    if (t.lane >= width)
      return int64_t(1) << t.lane;
    Block &b = *t.block;
    Warp &w = b.warps[t.warp];
    uint64_t bit = uint64_t(1) << t.lane;
    auto it = std::find_if(w.pending.begin(), w.pending.end(), [&](const Collective &c) {
      return c.width == width && !(c.arrived & bit);
    });
    if (it == w.pending.end()) {
      w.pending.push_back({width, site, 0});
      it = w.pending.end() - 1;
    }
    it->arrived |= bit;
    t.state = State::AtWarpSync;
    t.site = site;
    checkWarpRelease(b, t.warp);
    suspend(t);
    return t.syncMask;
  }

  //===--------------------------------------------------------------------===//
  // Race detection
  //===--------------------------------------------------------------------===//

  uint32_t gtid(const Thread &t) const {
    return uint32_t(t.block->linear * blockThreads + t.linear);
  }

  /// Whether `a` happens before the access `t` is making now.
  bool ordered(const Access &a, const Thread &t, bool shared) const {
    if (a.gtid == gtid(t))
      return true;
    int64_t aBlock = int64_t(a.gtid) / blockThreads;
    if (aBlock == t.block->linear)
      return a.epoch < t.block->epoch;
    // Shared memory is per block; across blocks only global memory, ordered
    // by what the accessing block acquired from the earlier one.
    return !shared && entry(t.block->vc, uint32_t(aBlock)) >= a.clock;
  }

  void report(RaceKind kind, bool shared, int64_t where, const Access &first,
              const Thread &t, int32_t site) {
    RaceReport &r = races[{int(kind), shared, first.site, site}];
    // Counted once per access (not per byte it covers).
    if (r.lastAccess == accessSerial)
      return;
    r.lastAccess = accessSerial;
    ++raceCount;
    if (r.count++ == 0) {
      r.kind = kind;
      r.shared = shared;
      r.where = where;
      r.firstGtid = first.gtid;
      r.secondGtid = gtid(t);
      r.firstSite = first.site;
      r.secondSite = site;
      r.order = raceCount;
    }
  }

  void check(Shadow &sh, Thread &t, int32_t op, bool atomic, int32_t site,
             bool shared, int64_t where) {
    Access cur{site, gtid(t), t.block->epoch, t.block->clock, atomic};
    bool writes = op & EXT_EMU_STORE;
    if (sh.write.valid() && !(atomic && sh.write.atomic) &&
        !ordered(sh.write, t, shared))
      report(writes ? RaceKind::WriteAfterWrite : RaceKind::ReadAfterWrite,
             shared, where, sh.write, t, site);
    if (writes) {
      for (Access &r : sh.readers)
        if (r.valid() && !(atomic && r.atomic) && !ordered(r, t, shared))
          report(RaceKind::WriteAfterRead, shared, where, r, t, site);
      sh.write = cur;
      for (Access &r : sh.readers)
        r.site = -1;
      return;
    }
    // A read: replace this thread's earlier read, a free slot, or (shared
    // memory) a read every later access is ordered after; otherwise one
    // slot (a race with the read dropped may go unreported, never invented).
    Access *slot = nullptr;
    for (Access &r : sh.readers)
      if (r.valid() && r.gtid == cur.gtid)
        slot = &r;
    for (Access &r : sh.readers)
      if (!slot && (!r.valid() || (shared && r.epoch < cur.epoch)))
        slot = &r;
    if (!slot)
      slot = &sh.readers[cur.gtid % Shadow::kReaders];
    *slot = cur;
  }

  void recordAccess(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
                    int32_t site) {
    if (kind & EXT_EMU_FENCE || bytes <= 0)
      return;
    ++accessSerial;
    int32_t op = kind & EXT_EMU_OP_MASK;
    bool atomic = kind & EXT_EMU_ATOMIC;
    Block &b = *t.block;
    char *p = reinterpret_cast<char *>(addr);
    if (kind & EXT_EMU_WORKGROUP) {
      if (!b.sharedShadow || p < b.shared || p + bytes > b.shared + sharedBytes)
        return;
      int64_t offset = p - b.shared;
      for (int64_t i = 0; i < bytes; ++i)
        check(b.sharedShadow[offset + i], t, op, atomic, site, true,
              offset + i);
      return;
    }
    // Private memory (the thread's stack) is not shared.
    if (t.stackTop && p <= t.stackTop + 256 &&
        p + bytes >= t.stackTop - int64_t(pool.usableBytes()))
      return;
    if (atomic) {
      // Atomics are acquire-release on their address (block granularity).
      VectorClock &sync = syncObjects[uint64_t(addr)];
      joinInto(b.vc, sync);
      joinInto(sync, b.vc);
      setEntry(sync, uint32_t(b.linear), b.clock);
      ++b.clock;
    }
    for (int64_t i = 0; i < bytes; ++i)
      check(globalShadow[uint64_t(addr + i)], t, op, atomic, site, false,
            addr + i);
  }

  std::string describeThread(uint32_t g) const {
    int64_t blk = int64_t(g) / blockThreads, thr = int64_t(g) % blockThreads;
    return "thread " + formatDim(delinearize(thr, p.block)) + " of block " +
           formatDim(delinearize(blk, p.grid));
  }

  void nameShared(Thread &t, const char *name, int64_t addr, int64_t bytes) {
    char *ptr = reinterpret_cast<char *>(addr);
    Block &b = *t.block;
    if (!c.racecheck || !name || ptr < b.shared ||
        ptr - b.shared >= sharedBytes || bytes <= 0)
      return;
    sharedViews.insert({ptr - b.shared, bytes, name});
  }

  /// "shared memory, byte 4 of <buffer>" or "global memory, byte 8 of
  /// <buffer>"; the raw offset or address where no named buffer holds it.
  /// Shared bytes also name the views over them (more than one where
  /// ext-reuse-shared-memory gave one range to buffers live at other times).
  std::string describeByte(bool shared, int64_t where) const {
    std::ostringstream os;
    os << (shared ? "shared memory, " : "global memory, ");
    const LaunchParams::Buffer *buffer = nullptr;
    for (const LaunchParams::Buffer &b : p.buffers)
      if (b.shared == shared && where >= b.start && where - b.start < b.bytes) {
        buffer = &b;
        break;
      }
    int64_t dynamicStart = (p.staticShared + 15) / 16 * 16;
    if (buffer) {
      os << "byte " << where - buffer->start << " of " << buffer->name;
    } else if (shared && p.dynamicShared > 0 && where >= dynamicStart) {
      os << "byte " << where - dynamicStart << " of dynamic shared memory";
    } else if (shared) {
      os << "workgroup byte " << where;
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)where);
      os << "address " << buf;
    }
    if (!shared)
      return os.str();
    const char *sep = ", in ";
    for (const auto &[offset, bytes, name] : sharedViews)
      if (where >= offset && where - offset < bytes) {
        os << sep << name << " at byte " << where - offset;
        sep = " or ";
      }
    return os.str();
  }

  std::string raceSummary() const {
    if (races.empty())
      return {};
    std::vector<const RaceReport *> list;
    for (auto &[key, r] : races)
      list.push_back(&r);
    std::sort(list.begin(), list.end(),
              [](auto *a, auto *b) { return a->order < b->order; });
    std::ostringstream os;
    os << "racecheck: " << races.size() << " data race"
       << (races.size() == 1 ? "" : "s") << " (" << raceCount
       << " conflicting access pair" << (raceCount == 1 ? "" : "s") << ")";
    static const char *kinds[] = {"read-after-write", "write-after-read",
                                  "write-after-write"};
    for (const RaceReport *r : list) {
      bool firstWrites = r->kind != RaceKind::WriteAfterRead;
      bool secondWrites = r->kind != RaceKind::ReadAfterWrite;
      os << "\next-emu: race: " << kinds[int(r->kind)] << " on "
         << describeByte(r->shared, r->where) << ": "
         << (firstWrites ? "write" : "read") << " by "
         << describeThread(r->firstGtid) << " at " << site(r->firstSite)
         << ", then " << (secondWrites ? "write" : "read") << " by "
         << describeThread(r->secondGtid) << " at " << site(r->secondSite)
         << " (" << r->count << " time" << (r->count == 1 ? "" : "s") << ")";
    }
    return os.str();
  }

  void access(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
              int32_t site) {
    schedule(t, kind, site);
    // The access happens when the thread resumes from its yield point (no
    // other thread runs until its next one): record it now, so that what an
    // atomic acquires is what the value it reads was released with.
    if (c.racecheck && error.empty())
      recordAccess(t, addr, bytes, kind, site);
  }

  void schedule(Thread &t, int32_t kind, int32_t site) {
    bool spin = kind & (EXT_EMU_ATOMIC | EXT_EMU_FENCE);
    if (!spin) {
      spins = 0;
      if (c.policy == Policy::Sequential)
        return;
    } else {
      // Where blocks may wait on each other: let another block run.
      switchBlock = true;
    }
    if (spin && ++spins > c.spinLimit) {
      fail("no progress after " + std::to_string(c.spinLimit) +
           " consecutive yields at atomics and fences (last at " +
           this->site(site) + " in " + where(t) +
           "): a spin-wait that is never satisfied? " +
           std::to_string(resident.size()) + " of " +
           std::to_string(totalBlocks) +
           " blocks are resident (at most " +
           std::to_string(c.maxResidentThreads) + " threads)");
      suspend(t);
      return;
    }
    yield(t);
  }

  void onExit(Thread &t) {
    Block &b = *t.block;
    t.state = State::Done;
    if (b.exited++ == 0)
      b.firstExited = t.linear;
    spins = 0;
    if (b.atBarrier > 0)
      fail(where(t) + " exited while " + std::to_string(b.atBarrier) +
           " other thread" + (b.atBarrier == 1 ? " of its block waits" : "s of its block wait") +
           " at the gpu.barrier at " +
           site(b.barrierSite) +
           "; every thread of a block must reach each barrier");
    checkWarpRelease(b, t.warp);
  }
};

Thread &current(const char *entry) {
  if (!tlsThread) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "ext-emu: error: %s called outside a kernel launched by "
                 "__ext_emu_launch\n",
                 entry);
    std::_Exit(1);
  }
  return *tlsThread;
}

bool parseUnsigned(const char *text, uint64_t &value) {
  if (!*text)
    return false;
  char *end;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || *end || *text == '-')
    return false;
  value = v;
  return true;
}

} // namespace

Config Config::fromEnvironment(std::string &error) {
  Config c;
  auto number = [&](const char *name, uint64_t &out) {
    const char *text = std::getenv(name);
    if (!text)
      return;
    if (!parseUnsigned(text, out))
      error = std::string(name) + "='" + text +
              "' is not a non-negative integer";
  };
  number("EXT_EMU_SEED", c.seed);
  uint64_t kb = c.stackBytes / 1024, resident = uint64_t(c.maxResidentThreads);
  number("EXT_EMU_STACK_KB", kb);
  number("EXT_EMU_MAX_RESIDENT_THREADS", resident);
  number("EXT_EMU_SPIN_LIMIT", c.spinLimit);
  uint64_t racecheck = 0;
  number("EXT_EMU_RACECHECK", racecheck);
  c.racecheck = racecheck != 0;
  if (kb < 16)
    kb = 16;
  c.stackBytes = size_t(kb) * 1024;
  c.maxResidentThreads = std::max<int64_t>(1, int64_t(resident));
  if (const char *text = std::getenv("EXT_EMU_SCHEDULE")) {
    std::string s = text;
    if (s == "random")
      c.policy = Policy::Random;
    else if (s == "round-robin")
      c.policy = Policy::RoundRobin;
    else if (s == "sequential")
      c.policy = Policy::Sequential;
    else
      error = "EXT_EMU_SCHEDULE='" + s +
              "' is not one of random, round-robin, sequential";
  }
  return c;
}

std::string launch(const LaunchParams &params, const Config &config) {
  std::string where = "kernel '" + params.kernel + "' (launched at " +
                      params.launchSite + "): ";
  auto positive = [](const Dim3 &d) { return d.x > 0 && d.y > 0 && d.z > 0; };
  if (tlsThread)
    return where + "a kernel cannot launch a kernel";
  if (!params.trampoline)
    return where + "no kernel entry";
  if (!positive(params.grid) || !positive(params.block))
    return where + "grid " + formatDim(params.grid) + " and block " +
           formatDim(params.block) + " sizes must be positive";
  if (params.block.count() > EXT_EMU_MAX_BLOCK_THREADS)
    return where + "a block of " + formatDim(params.block) + " = " +
           std::to_string(params.block.count()) + " threads exceeds " +
           std::to_string(EXT_EMU_MAX_BLOCK_THREADS);
  if (params.staticShared < 0 || params.dynamicShared < 0 ||
      params.dynamicShared > (int64_t(1) << 30))
    return where + "invalid workgroup memory size (" +
           std::to_string(params.staticShared) + " static, " +
           std::to_string(params.dynamicShared) + " dynamic bytes)";
  Launch launch(params, config);
  return launch.run();
}

uint64_t lastLaunchSwitches() { return tlsLastSwitches; }

} // namespace ext::emu

//===----------------------------------------------------------------------===//
// C entry points (the ABI in ext/Runtime/CpuEmulationABI.h)
//===----------------------------------------------------------------------===//

using namespace ext::emu;

namespace {
[[noreturn]] void reportAndExit(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "ext-emu: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

int64_t component(const Dim3 &d, int32_t dim) {
  return dim == 0 ? d.x : dim == 1 ? d.y : d.z;
}
} // namespace

extern "C" {

void __ext_emu_launch(const char *kernel, const char *launchSite,
                      const char *sites, int64_t numSites,
                      void (*trampoline)(void **), void **args, int64_t gx,
                      int64_t gy, int64_t gz, int64_t bx, int64_t by,
                      int64_t bz, int64_t staticShared, int64_t dynamicShared,
                      const char *buffers, int64_t numBuffers,
                      const int64_t *bufferRanges) {
  std::string error;
  Config config = Config::fromEnvironment(error);
  if (!error.empty())
    reportAndExit(error);
  LaunchParams params;
  params.kernel = kernel ? kernel : "?";
  params.launchSite = launchSite ? launchSite : "?";
  for (int64_t i = 0; sites && i < numSites; ++i) {
    params.sites.emplace_back(sites);
    sites += params.sites.back().size() + 1;
  }
  for (int64_t i = 0; buffers && bufferRanges && i < numBuffers; ++i) {
    LaunchParams::Buffer b;
    b.name = buffers;
    buffers += b.name.size() + 1;
    b.shared = bufferRanges[3 * i] == EXT_EMU_BUFFER_WORKGROUP;
    b.start = bufferRanges[3 * i + 1];
    b.bytes = bufferRanges[3 * i + 2];
    params.buffers.push_back(std::move(b));
  }
  params.trampoline = trampoline;
  params.args = args;
  params.grid = {gx, gy, gz};
  params.block = {bx, by, bz};
  params.staticShared = staticShared;
  params.dynamicShared = dynamicShared;
  error = launch(params, config);
  if (!error.empty())
    reportAndExit(error);
}

int64_t __ext_emu_thread_id(int32_t dim) {
  return component(current("__ext_emu_thread_id").id, dim);
}
int64_t __ext_emu_block_id(int32_t dim) {
  return component(current("__ext_emu_block_id").block->id, dim);
}
int64_t __ext_emu_block_dim(int32_t dim) {
  return component(current("__ext_emu_block_dim").launch->p.block, dim);
}
int64_t __ext_emu_grid_dim(int32_t dim) {
  return component(current("__ext_emu_grid_dim").launch->p.grid, dim);
}

void *__ext_emu_shared_base(void) {
  return current("__ext_emu_shared_base").block->shared;
}
void *__ext_emu_dynamic_shared_base(void) {
  Thread &t = current("__ext_emu_dynamic_shared_base");
  return t.block->shared + (t.launch->p.staticShared + 15) / 16 * 16;
}
int64_t __ext_emu_dynamic_shared_size(void) {
  return current("__ext_emu_dynamic_shared_size").launch->p.dynamicShared;
}
void *__ext_emu_scratch(void) {
  return current("__ext_emu_scratch").block->scratch;
}

void __ext_emu_barrier(int32_t site) {
  Thread &t = current("__ext_emu_barrier");
  t.launch->barrier(t, site);
}

int64_t __ext_emu_warp_sync(int32_t site, int32_t width) {
  Thread &t = current("__ext_emu_warp_sync");
  return t.launch->warpSync(t, site, width);
}

void __ext_emu_access(int64_t addr, int64_t bytes, int32_t kind,
                      int32_t site) {
  Thread &t = current("__ext_emu_access");
  t.launch->access(t, addr, bytes, kind, site);
}

void __ext_emu_name_shared(const char *name, int64_t addr, int64_t bytes) {
  Thread &t = current("__ext_emu_name_shared");
  t.launch->nameShared(t, name, addr, bytes);
}

} // extern "C"
