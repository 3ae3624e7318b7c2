//===- FiberScheduler.cpp - GPU threads as cooperative fibers -------------===//

#include "FiberScheduler.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
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

thread_local std::unique_ptr<StackPool> tlsPool;

StackPool &stackPool(size_t usable) {
  if (!tlsPool || tlsPool->usableBytes() < usable)
    tlsPool = std::make_unique<StackPool>(usable);
  return *tlsPool;
}

thread_local Thread *tlsThread = nullptr;
thread_local uint64_t tlsLastSwitches = 0;

} // namespace

Thread *currentThread() { return tlsThread; }
uint64_t lastLaunchSwitches() { return tlsLastSwitches; }

Block::~Block() {
  std::free(shared);
  std::free(scratch);
}

//===----------------------------------------------------------------------===//
// FiberScheduler
//===----------------------------------------------------------------------===//

FiberScheduler::FiberScheduler(const LaunchParams &params, const Config &config)
    : p(params), c(config), rng(config.seed),
      pool(stackPool(config.stackBytes)),
      progress(params.kernel, params.grid.count(), params.block.count(),
               config.progress < 0    ? LaunchProgress::Mode::Auto
               : config.progress == 0 ? LaunchProgress::Mode::Off
                                      : LaunchProgress::Mode::Always) {
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
  if (c.racecheck)
    races = std::make_unique<RaceDetector>(p, sharedBytes);
  if (c.bankConflicts)
    banks = std::make_unique<BankCounter>(blockThreads);
}

FiberScheduler::~FiberScheduler() = default;

const std::string &FiberScheduler::site(int32_t index) const {
  static const std::string unknown = "<unknown location>";
  if (index < 0 || size_t(index) >= p.sites.size())
    return unknown;
  return p.sites[index];
}

std::string FiberScheduler::where(const Thread &t) const {
  return "thread " + formatDim(t.id) + " of block " + formatDim(t.block->id);
}

void FiberScheduler::fail(std::string message) {
  if (error.empty())
    error = "kernel '" + p.kernel + "' (launched at " + p.launchSite +
            "): " + std::move(message);
}

void FiberScheduler::admitBlocks() {
  while (nextBlock < totalBlocks &&
         (resident.empty() ||
          residentThreads + blockThreads <= c.maxResidentThreads)) {
    auto block = std::make_unique<Block>();
    block->linear = nextBlock++;
    block->id = delinearize(block->linear, p.grid);
    block->threads = std::make_unique<Thread[]>(blockThreads);
    block->warps.resize((blockThreads + c.warpSize - 1) / c.warpSize);
    // Workgroup memory starts out as 0xff bytes (NaN, -1): reading what
    // no thread wrote is visible in the results, as garbage is on a GPU.
    // Aligned to 256 KiB, the shared window's size on every chip: the low
    // 18 bits of an address are its offset in the window, which is what a
    // wgmma matrix descriptor keeps (and what its swizzle XORs).
    constexpr int64_t window = int64_t(1) << 18;
    block->shared = static_cast<char *>(std::aligned_alloc(
        window, std::max<int64_t>(window, (sharedBytes + window - 1) / window *
                                              window)));
    std::memset(block->shared, 0xff, sharedBytes);
    if (races)
      races->initBlock(block->race);
    block->scratch = static_cast<char *>(std::aligned_alloc(
        64, blockThreads * EXT_EMU_SCRATCH_BYTES_PER_THREAD));
    for (int64_t i = 0; i < blockThreads; ++i) {
      Thread &t = block->threads[i];
      t.launch = this;
      t.block = block.get();
      t.linear = i;
      t.id = delinearize(i, p.block);
      t.lane = int32_t(i % c.warpSize);
      t.warp = int32_t(i / c.warpSize);
      Thread *tp = &t;
      t.self = bctx::fiber(std::allocator_arg, PoolAllocator{&pool, tp},
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

void FiberScheduler::push(Thread &t) {
  t.block->ready.push_back(&t);
  ++readyCount;
}

Block *FiberScheduler::chooseBlock() {
  if (c.policy == Policy::Random) {
    std::vector<Block *> candidates;
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

Thread *FiberScheduler::pick() {
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

void FiberScheduler::retireFinishedBlocks() {
  auto done = [&](const std::unique_ptr<Block> &b) {
    return b->exited == blockThreads;
  };
  size_t before = resident.size();
  if (current && current->exited == blockThreads)
    current = nullptr;
  for (const std::unique_ptr<Block> &b : resident)
    if (done(b))
      flushPrinted(*b);
  resident.erase(std::remove_if(resident.begin(), resident.end(), done),
                 resident.end());
  residentThreads -= int64_t(before - resident.size()) * blockThreads;
  progress.blocksDone(int64_t(before - resident.size()));
}

void FiberScheduler::flushPrinted(Block &b) {
  if (b.printed.empty())
    return;
  std::stable_sort(b.printed.begin(), b.printed.end(),
                   [](const PrintedLine &x, const PrintedLine &y) {
                     return std::tie(x.warp, x.sequence, x.lane) <
                            std::tie(y.warp, y.sequence, y.lane);
                   });
  for (const PrintedLine &line : b.printed)
    std::fwrite(line.text.data(), 1, line.text.size(), stdout);
  b.printed.clear();
}

void FiberScheduler::print(Thread &t, std::string text) {
  t.block->printed.push_back({t.warp, t.lane, t.printCount++, std::move(text)});
}

std::string FiberScheduler::describeDeadlock() const {
  std::ostringstream os;
  os << "deadlock: no thread can continue";
  int shown = 0;
  for (const auto &b : resident) {
    std::map<std::pair<int, int32_t>, int64_t> waits; // (kind, site) -> n
    for (int64_t i = 0; i < blockThreads; ++i) {
      const Thread &t = b->threads[i];
      if (t.state == ThreadState::AtBarrier)
        ++waits[{0, t.site}];
      else if (t.state == ThreadState::AtWarpSync)
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

void FiberScheduler::abandonSuspendedThreads() {
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
  for (auto &b : resident)
    for (int64_t i = 0; i < blockThreads; ++i) {
      Thread &t = b->threads[i];
      if (!t.self || !t.stackTop)
        continue;
      Dropped dropped;
      new (&dropped.handle) bctx::fiber(std::move(t.self));
      pool.deallocate(t.stack);
    }
  resident.clear();
}

std::string FiberScheduler::run() {
  admitBlocks();
  while (error.empty()) {
    if (readyCount == 0) {
      if (resident.empty() && nextBlock == totalBlocks)
        break;
      fail(describeDeadlock());
      break;
    }
    Thread *t = pick();
    t->state = ThreadState::Running;
    tlsThread = t;
    t->self = std::move(t->self).resume();
    tlsThread = nullptr;
    ++switches;
    if (t->state == ThreadState::Done && t->block->exited == blockThreads) {
      if (banks)
        banks->flushBlock(t->block->linear);
      retireFinishedBlocks();
      admitBlocks();
    }
  }
  progress.finish();
  // What the blocks still resident printed comes before the error.
  for (const std::unique_ptr<Block> &b : resident)
    flushPrinted(*b);
  std::fflush(stdout);
  if (!error.empty())
    abandonSuspendedThreads();
  else if (races && !races->empty())
    fail(races->summary());
  if (banks && error.empty())
    std::fputs(banks->report(p.kernel, p.sites).c_str(), stderr);
  tlsLastSwitches = switches;
  return error;
}

void FiberScheduler::suspend(Thread &t) {
  t.scheduler = std::move(t.scheduler).resume();
}

void FiberScheduler::yield(Thread &t) {
  t.state = ThreadState::Ready;
  push(t);
  suspend(t);
}

void FiberScheduler::releaseBarrier(Block &b) {
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
  spins = 0;
}

void FiberScheduler::barrier(Thread &t, int32_t site) {
  Block &b = *t.block;
  maybeLandEarly(t);
  if (t.wgmmaIssued || t.wgmmaGroups)
    fail(where(t) + " reached the gpu.barrier at " + this->site(site) +
         " with warpgroup MMAs it has not waited for (wgmma.commit_group, "
         "then wgmma.wait_group 0)");
  if (b.atBarrier > 0 && b.barrierSite != site) {
    fail(where(t) + " reached the gpu.barrier at " + this->site(site) +
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
void FiberScheduler::checkWarpRelease(Block &b, int32_t warpIndex) {
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
    spins = 0;
  }
}

int64_t FiberScheduler::warpSync(Thread &t, int32_t site, int32_t width) {
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

void FiberScheduler::failMisaligned(Thread &t, int64_t bytes, const char *what,
                                    int32_t site, const std::string &detail) {
  fail(where(t) + ": the " + std::to_string(bytes) + "-byte " + what + " at " +
       this->site(site) + " is misaligned (" + detail + ")");
  suspend(t);
}

void FiberScheduler::access(Thread &t, int64_t addr, int64_t bytes,
                            int32_t kind, int32_t site) {
  schedule(t, kind, site);
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
  if (banks && (kind & EXT_EMU_WORKGROUP) && !(kind & EXT_EMU_FENCE) &&
      bytes > 0)
    banks->record(t.block->linear, t.linear, site,
                  addr - reinterpret_cast<int64_t>(t.block->shared), bytes);
  recordRace(t, addr, bytes, kind, site);
  maybeLandEarly(t);
}

void FiberScheduler::recordRace(Thread &t, int64_t addr, int64_t bytes,
                                int32_t kind, int32_t site) {
  if (!races || !error.empty())
    return;
  Block &b = *t.block;
  races->recordAccess({uint32_t(b.linear * blockThreads + t.linear), b.linear,
                       b.race, b.shared, t.stackTop, pool.usableBytes()},
                      addr, bytes, kind, site);
}

void FiberScheduler::recordMatrixRead(Thread &t, int64_t addr, int64_t bytes,
                                      int32_t site) {
  recordRace(t, addr, bytes, EXT_EMU_WORKGROUP | EXT_EMU_LOAD, site);
}

void FiberScheduler::land(Thread &t, const AsyncCopy &copy) {
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
}

void FiberScheduler::maybeLandEarly(Thread &t) {
  // Seed 0 lands every copy as late as the program allows (at the wait that
  // covers it), which shows a missing or weak wait most surely; other seeds
  // also try earlier points.
  // Empty groups (a commit with no copies) have nothing to land.
  while (!t.copyGroups.empty() && t.copyGroups.front().empty())
    t.copyGroups.pop_front();
  if (c.seed == 0 || (t.copyGroups.empty() && t.openCopies.empty()) ||
      rng() % 4 != 0)
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

void FiberScheduler::asyncCopy(Thread &t, int64_t dst, int64_t src,
                               int64_t dstBytes, int64_t srcBytes,
                               int32_t site) {
  if (srcBytes < 0 || srcBytes > dstBytes) {
    fail(where(t) + ": the asynchronous copy at " + this->site(site) +
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
  // The copy's shared-memory write is one lane of a warp-wide request, as
  // a store's is (cp.async writes through the same banks).
  if (banks && dstBytes > 0)
    banks->record(t.block->linear, t.linear, site, dstOffset, dstBytes);
  t.openCopies.push_back({reinterpret_cast<char *>(dst),
                          reinterpret_cast<const char *>(src), dstBytes,
                          srcBytes, site});
  maybeLandEarly(t);
}

void FiberScheduler::asyncCommit(Thread &t) {
  t.copyGroups.push_back(std::move(t.openCopies));
  t.openCopies.clear();
}

void FiberScheduler::asyncWait(Thread &t, int32_t pending, int32_t site) {
  (void)site;
  while (t.copyGroups.size() > size_t(std::max(pending, 0))) {
    for (const AsyncCopy &copy : t.copyGroups.front())
      land(t, copy);
    t.copyGroups.pop_front();
  }
}

void FiberScheduler::schedule(Thread &t, int32_t kind, int32_t site) {
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
         std::to_string(totalBlocks) + " blocks are resident (at most " +
         std::to_string(c.maxResidentThreads) + " threads)");
    suspend(t);
    return;
  }
  yield(t);
}

void FiberScheduler::assertFailed(Thread &t, const std::string &message,
                                  int32_t site) {
  fail(where(t) + ": assertion failed at " + this->site(site) + ": " + message);
  suspend(t);
}

void FiberScheduler::instructionFailed(Thread &t, int32_t site,
                                       std::string message) {
  fail(where(t) + ": " + this->site(site) + ": " + std::move(message));
  message = std::string();
  suspend(t);
  // The launch has failed: the scheduler never resumes `t`.
  __builtin_unreachable();
}

void FiberScheduler::onExit(Thread &t) {
  Block &b = *t.block;
  // Copies still in flight land before the thread is gone.
  asyncCommit(t);
  asyncWait(t, 0, -1);
  if (t.wgmmaIssued || t.wgmmaGroups)
    fail(where(t) + " exited with warpgroup MMAs it has not waited for "
                    "(wgmma.commit_group, then wgmma.wait_group 0)");
  t.state = ThreadState::Done;
  if (b.exited++ == 0)
    b.firstExited = t.linear;
  spins = 0;
  if (b.atBarrier > 0)
    fail(where(t) + " exited while " + std::to_string(b.atBarrier) +
         " other thread" +
         (b.atBarrier == 1 ? " of its block waits" : "s of its block wait") +
         " at the gpu.barrier at " + site(b.barrierSite) +
         "; every thread of a block must reach each barrier");
  checkWarpRelease(b, t.warp);
}
void FiberScheduler::nameShared(Thread &t, const char *name, int64_t addr,
                                int64_t bytes) {
  if (races)
    races->nameShared(t.block->shared, name, addr, bytes);
}

} // namespace ext::emu
