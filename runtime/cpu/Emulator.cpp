//===- Emulator.cpp - the CPU emulation runtime's entry points ------------===//
//
// The configuration (the host thread's options, else the environment),
// launch validation, the host's launches and waits, and the C entry points
// of ext/Runtime/CpuEmulationABI.h; the scheduler is FiberScheduler.cpp,
// race detection RaceDetector.cpp.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"
#include "FiberScheduler.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationOptions.h"
#include "ext/Model/Chip.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <mutex>
#include <thread>
#include <sstream>

namespace ext::emu {
namespace {

/// The most private memory per thread a launch may ask for: NVIDIA's local
/// memory per thread, the most any GPU gives (ext-gpu-check-resource-limits
/// refuses more for the chip compiled for).
constexpr int64_t kMaxPrivateBytes = int64_t(512) << 10;
/// What the stacks of the resident threads of a launch whose threads keep
/// private memory may take together (virtual, touched as used); fewer
/// threads are resident rather than more memory.
constexpr uint64_t kPrivateStackBudget = uint64_t(4) << 30;

Thread &current(const char *entry) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch(entry);
  return *t;
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

Config Config::resolve(const ExtEmuOptions *given, std::string &error) {
  Config c;
  uint32_t fields = given ? given->fields : 0;
  // A field the host set wins; the environment only fills the others.
  auto number = [&](uint32_t field, uint64_t value, const char *name,
                    uint64_t &out) {
    if (fields & field) {
      out = value;
      return;
    }
    const char *text = std::getenv(name);
    if (!text)
      return;
    if (!parseUnsigned(text, out))
      error =
          std::string(name) + "='" + text + "' is not a non-negative integer";
  };
  auto flag = [&](uint32_t field, int32_t value, const char *name) {
    uint64_t on = 0;
    number(field, value != 0, name, on);
    return on != 0;
  };
  ExtEmuOptions none = {};
  const ExtEmuOptions &g = given ? *given : none;
  number(EXT_EMU_OPT_SEED, g.seed, "EXT_EMU_SEED", c.seed);
  uint64_t kb = c.stackBytes / 1024, resident = uint64_t(c.maxResidentThreads);
  number(EXT_EMU_OPT_STACK_KB, g.stackKB, "EXT_EMU_STACK_KB", kb);
  number(EXT_EMU_OPT_MAX_RESIDENT_THREADS, g.maxResidentThreads,
         "EXT_EMU_MAX_RESIDENT_THREADS", resident);
  number(EXT_EMU_OPT_SPIN_LIMIT, g.spinLimit, "EXT_EMU_SPIN_LIMIT",
         c.spinLimit);
  c.racecheck = flag(EXT_EMU_OPT_RACECHECK, g.racecheck, "EXT_EMU_RACECHECK");
  if ((fields & EXT_EMU_OPT_PROGRESS) || std::getenv("EXT_EMU_PROGRESS"))
    c.progress = flag(EXT_EMU_OPT_PROGRESS, g.progress, "EXT_EMU_PROGRESS");
  c.bankConflicts = flag(EXT_EMU_OPT_BANK_CONFLICTS, g.bankConflicts,
                         "EXT_EMU_BANK_CONFLICTS");
  uint64_t warpSize = uint64_t(c.warpSize);
  number(EXT_EMU_OPT_WARP_SIZE, uint64_t(g.warpSize), "EXT_EMU_WARP_SIZE",
         warpSize);
  if (warpSize != 32 && warpSize != 64)
    error = (fields & EXT_EMU_OPT_WARP_SIZE ? "warp size "
                                            : "EXT_EMU_WARP_SIZE=") +
            std::string("'") + std::to_string(warpSize) + "' is not 32 or 64";
  c.warpSize = int32_t(warpSize);
  uint64_t threads = 0;
  number(EXT_EMU_OPT_THREADS, g.threads, "EXT_EMU_THREADS", threads);
  if (threads > 4096)
    error = (fields & EXT_EMU_OPT_THREADS ? "worker threads "
                                          : "EXT_EMU_THREADS=") +
            std::string("'") + std::to_string(threads) +
            "' is more than 4096";
  c.threads = int32_t(threads);
  if (kb < 16)
    kb = 16;
  c.stackBytes = size_t(kb) * 1024;
  c.maxResidentThreads = std::max<int64_t>(1, int64_t(resident));
  if (fields & EXT_EMU_OPT_SCHEDULE) {
    switch (g.schedule) {
    case EXT_EMU_SCHEDULE_RANDOM:
      c.policy = Policy::Random;
      break;
    case EXT_EMU_SCHEDULE_ROUND_ROBIN:
      c.policy = Policy::RoundRobin;
      break;
    case EXT_EMU_SCHEDULE_SEQUENTIAL:
      c.policy = Policy::Sequential;
      break;
    default:
      error = "schedule " + std::to_string(g.schedule) +
              " is not an ExtEmuSchedule";
    }
  } else if (const char *text = std::getenv("EXT_EMU_SCHEDULE")) {
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

std::string validateLaunch(const LaunchParams &params) {
  std::string where = "kernel '" + params.kernel + "' (launched at " +
                      params.launchSite + "): ";
  auto positive = [](const Dim3 &d) { return d.x > 0 && d.y > 0 && d.z > 0; };
  // Sizes come from the program: their products are formed only where
  // they cannot overflow.
  auto countFits = [](const Dim3 &d) {
    int64_t xy, xyz;
    return !__builtin_mul_overflow(d.x, d.y, &xy) &&
           !__builtin_mul_overflow(xy, d.z, &xyz);
  };
  if (currentThread())
    return where + "a kernel cannot launch a kernel";
  if (!params.trampoline)
    return where + "no kernel entry";
  if (!positive(params.grid) || !positive(params.block))
    return where + "grid " + formatDim(params.grid) + " and block " +
           formatDim(params.block) + " sizes must be positive";
  if (!countFits(params.grid) || !countFits(params.block) ||
      !countFits(params.cluster))
    return where + "grid " + formatDim(params.grid) + ", block " +
           formatDim(params.block) + " or cluster " +
           formatDim(params.cluster) + " has more than 2^63 points";
  const Dim3 &grid = params.grid, &cluster = params.cluster;
  if (!positive(cluster))
    return where + "cluster " + formatDim(cluster) +
           " sizes must be positive";
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return where + "a grid of " + formatDim(grid) +
           " blocks is not a whole number of clusters of " +
           formatDim(cluster) +
           " blocks: each grid dimension must be a multiple of the "
           "cluster's";
  if (cluster.count() > kNonPortableClusterCtas)
    return where + "a cluster of " + formatDim(cluster) + " = " +
           std::to_string(cluster.count()) + " blocks exceeds " +
           std::to_string(kNonPortableClusterCtas) +
           ", the most a GPU allows (H100's non-portable cluster size; " +
           std::to_string(kPortableClusterCtas) + " is the portable one)";
  if (params.block.count() > EXT_EMU_MAX_BLOCK_THREADS)
    return where + "a block of " + formatDim(params.block) + " = " +
           std::to_string(params.block.count()) + " threads exceeds " +
           std::to_string(EXT_EMU_MAX_BLOCK_THREADS);
  if (params.privateBytes < 0 || params.privateBytes > kMaxPrivateBytes)
    return where + "each thread keeps " +
           std::to_string(params.privateBytes) +
           " bytes of private memory; the emulator runs at most " +
           std::to_string(kMaxPrivateBytes) +
           " (512 KB, NVIDIA's local memory per thread, the most any GPU "
           "gives a thread)";
  if (params.staticShared < 0 || params.dynamicShared < 0 ||
      params.staticShared > (int64_t(1) << 30) ||
      params.dynamicShared > (int64_t(1) << 30))
    return where + "invalid workgroup memory size (" +
           std::to_string(params.staticShared) + " static, " +
           std::to_string(params.dynamicShared) + " dynamic bytes)";
  return "";
}

void outsideLaunch(const char *entry) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "ext-emu: error: %s called outside a kernel launched by "
               "__ext_emu_launch\n",
               entry);
  std::fflush(stderr);
  std::abort();
}

std::string formatDim(const Dim3 &d) {
  std::ostringstream os;
  os << "(" << d.x << ", " << d.y << ", " << d.z << ")";
  return os.str();
}

Dim3 delinearize(int64_t linear, const Dim3 &shape) {
  return {linear % shape.x, (linear / shape.x) % shape.y,
          linear / (shape.x * shape.y)};
}

// The host's side of a launch: it hands the grid to the device and waits.
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

/// The host's settings and __ext_emu_return_errors' state. Per host thread
/// (two Python threads run with their own options and see their own
/// errors); a thread that set none (the async runtime's, running an
/// `async.execute` body) follows the host that set them last.
struct HostState {
  bool hasOptions = false;
  ExtEmuOptions options;
  bool keepErrors = false;
  std::string keptError;
};
thread_local bool threadConfigured = false;
thread_local HostState threadState;
std::mutex fallbackMutex;
HostState fallbackState;

/// Runs `f` on the calling thread's state, or the fallback under its lock.
template <typename F> auto withHostState(F f) {
  if (threadConfigured)
    return f(threadState);
  std::lock_guard<std::mutex> lock(fallbackMutex);
  return f(fallbackState);
}

/// A launch's error (or a host check's, where `keepable`): kept for the
/// host, or the end of the process.
void launchFailed(const std::string &message, bool keepable = true) {
  withHostState([&](HostState &h) {
    if (!keepable || !h.keepErrors)
      reportAndExit(message);
    std::fflush(stdout);
    if (h.keptError.empty())
      h.keptError = message;
  });
}

/// Whether a kept error stops the launches after it.
bool stopped() {
  return withHostState(
      [](HostState &h) { return h.keepErrors && !h.keptError.empty(); });
}

Config hostConfig(std::string &error) {
  return withHostState([&](HostState &h) {
    return Config::resolve(h.hasOptions ? &h.options : nullptr, error);
  });
}

std::vector<Event *> eventList(void **events, int64_t count) {
  std::vector<Event *> list;
  for (int64_t i = 0; events && i < count; ++i)
    if (events[i])
      list.push_back(static_cast<Event *>(events[i]));
  return list;
}

int64_t component(const Dim3 &d, int32_t dim) {
  return dim == 0 ? d.x : dim == 1 ? d.y : d.z;
}

/// A kernel's private memory (its allocas) is on each thread's fiber stack:
/// the stacks grow by it, above the usual room for calls into the runtime,
/// instead of overflowing into the guard page. Resident threads are capped
/// so that their stacks stay within kPrivateStackBudget, never below one
/// cluster. A size validateLaunch refuses is left for it to report.
void fitStacks(const LaunchParams &params, Config &config) {
  if (params.privateBytes <= 0 || params.privateBytes > kMaxPrivateBytes)
    return;
  size_t page = 4096;
  config.stackBytes +=
      (size_t(params.privateBytes) + page - 1) / page * page;
  int64_t floor = 1;
  const Dim3 &b = params.block, &c = params.cluster;
  auto within = [](const Dim3 &d, int64_t most) {
    return d.x > 0 && d.y > 0 && d.z > 0 && d.x <= most && d.y <= most &&
           d.z <= most;
  };
  if (within(b, EXT_EMU_MAX_BLOCK_THREADS) &&
      within(c, ext::kNonPortableClusterCtas))
    floor = b.count() * c.count();
  int64_t budget = int64_t(kPrivateStackBudget / config.stackBytes);
  config.maxResidentThreads = std::max(
      floor, std::min<int64_t>(config.maxResidentThreads, budget));
}
} // namespace

extern "C" {

void *__ext_emu_launch(const char *kernel, const char *launchSite,
                       const char *sites, int64_t numSites,
                       void (*trampoline)(void **), void **args,
                       int64_t numArgs, const int64_t *argBytes, int64_t gx,
                       int64_t gy, int64_t gz, int64_t bx, int64_t by,
                       int64_t bz, int64_t staticShared,
                       int64_t dynamicShared, const char *buffers,
                       int64_t numBuffers, const int64_t *bufferRanges,
                       void **deps, int64_t numDeps, int32_t async,
                       int64_t cx, int64_t cy, int64_t cz) {
  // After a kept error the host's data is undefined: run nothing more.
  if (stopped())
    return nullptr;
  std::string error;
  Config config = hostConfig(error);
  if (!error.empty()) {
    launchFailed(error);
    return nullptr;
  }
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
    // Not a range: the kernel's private memory per thread.
    if (bufferRanges[3 * i] == EXT_EMU_BUFFER_PRIVATE) {
      params.privateBytes = bufferRanges[3 * i + 2];
      continue;
    }
    b.shared = bufferRanges[3 * i] == EXT_EMU_BUFFER_WORKGROUP;
    b.start = bufferRanges[3 * i + 1];
    b.bytes = bufferRanges[3 * i + 2];
    params.buffers.push_back(std::move(b));
  }
  params.trampoline = trampoline;
  params.args = args;
  params.grid = {gx, gy, gz};
  params.block = {bx, by, bz};
  params.cluster = {cx, cy, cz};
  params.staticShared = staticShared;
  params.dynamicShared = dynamicShared;
  fitStacks(params, config);
  std::vector<Event *> after = eventList(deps, numDeps);
  if (!async) {
    // A synchronous launch still follows what it depends on.
    if (!after.empty())
      if (std::string e = waitEvents(after); !e.empty()) {
        launchFailed(e);
        return nullptr;
      }
    error = launch(params, config);
    if (!error.empty())
      launchFailed(error);
    return nullptr;
  }
  std::vector<int64_t> sizes(argBytes, argBytes + std::max<int64_t>(numArgs, 0));
  Event *e = launchAsync(params, config, sizes, after, error);
  if (!e)
    launchFailed(error);
  return e;
}

void *__ext_emu_join(void **deps, int64_t numDeps) {
  return joinEvents(eventList(deps, numDeps));
}

void __ext_emu_wait(void **events, int64_t numEvents) {
  std::vector<Event *> list = eventList(events, numEvents);
  // A wait on nothing waits for every launch in flight.
  if (numEvents > 0 && list.empty())
    return;
  if (std::string error = waitEvents(list); !error.empty())
    launchFailed(error);
}

void __ext_emu_synchronize(void) {
  if (std::string error = waitEvents({}); !error.empty())
    launchFailed(error);
}

void __ext_emu_host_assert_fail(const char *message, int32_t guarded) {
  std::string text = std::string("host check failed: ") +
                     (message ? message : "(no message)");
  launchFailed(text, /*keepable=*/guarded != 0);
}

void __ext_emu_set_launch_options(const ExtEmuOptions *options) {
  threadConfigured = true;
  threadState.hasOptions = options != nullptr;
  if (options)
    threadState.options = *options;
  std::lock_guard<std::mutex> lock(fallbackMutex);
  fallbackState.hasOptions = threadState.hasOptions;
  fallbackState.options = threadState.options;
}

void __ext_emu_return_errors(int32_t on) {
  threadConfigured = true;
  threadState.keepErrors = on != 0;
  threadState.keptError.clear();
  std::lock_guard<std::mutex> lock(fallbackMutex);
  fallbackState.keepErrors = on != 0;
  fallbackState.keptError.clear();
}

const char *__ext_emu_take_error(void) {
  thread_local std::string taken;
  taken = std::move(threadState.keptError);
  threadState.keptError.clear();
  // What the threads following this host kept (an async.execute body's
  // launch) comes second.
  std::lock_guard<std::mutex> lock(fallbackMutex);
  if (taken.empty())
    taken = std::move(fallbackState.keptError);
  fallbackState.keptError.clear();
  return taken.empty() ? nullptr : taken.c_str();
}

int64_t __ext_emu_thread_id(int32_t dim) {
  return component(current("__ext_emu_thread_id").id, dim);
}
int64_t __ext_emu_block_id(int32_t dim) {
  return component(current("__ext_emu_block_id").block->id, dim);
}
int64_t __ext_emu_block_dim(int32_t dim) {
  return component(current("__ext_emu_block_dim").launch->params().block, dim);
}
int64_t __ext_emu_warp_size(void) {
  return current("__ext_emu_warp_size").launch->warpSize();
}
int64_t __ext_emu_grid_dim(int32_t dim) {
  return component(current("__ext_emu_grid_dim").launch->params().grid, dim);
}
int64_t __ext_emu_cluster_id(int32_t dim) {
  return component(current("__ext_emu_cluster_id").block->cluster->id, dim);
}
int64_t __ext_emu_cluster_dim(int32_t dim) {
  return component(current("__ext_emu_cluster_dim").launch->clustersPerGrid(),
                   dim);
}
int64_t __ext_emu_cluster_block_id(int32_t dim) {
  Thread &t = current("__ext_emu_cluster_block_id");
  return component(t.block->id, dim) %
         component(t.launch->params().cluster, dim);
}
int64_t __ext_emu_cluster_dim_blocks(int32_t dim) {
  return component(
      current("__ext_emu_cluster_dim_blocks").launch->params().cluster, dim);
}
int64_t __ext_emu_cluster_rank(void) {
  return current("__ext_emu_cluster_rank").block->rank;
}

void *__ext_emu_shared_base(void) {
  return current("__ext_emu_shared_base").block->shared;
}
void *__ext_emu_dynamic_shared_base(void) {
  Thread &t = current("__ext_emu_dynamic_shared_base");
  return t.block->shared + dynamicSharedOffset(t.launch->params());
}
int64_t __ext_emu_dynamic_shared_size(void) {
  return current("__ext_emu_dynamic_shared_size")
      .launch->params()
      .dynamicShared;
}
void *__ext_emu_scratch(void) {
  return current("__ext_emu_scratch").block->scratch;
}

void __ext_emu_barrier(int32_t site) {
  Thread &t = current("__ext_emu_barrier");
  t.launch->barriers.blockBarrier(t, site);
}

void __ext_emu_named_barrier(int32_t id, int32_t count, int32_t site) {
  Thread &t = current("__ext_emu_named_barrier");
  t.launch->barriers.namedBarrier(t, id, count, site);
}

void __ext_emu_cluster_arrive(int32_t relaxed, int32_t site) {
  Thread &t = current("__ext_emu_cluster_arrive");
  t.launch->barriers.clusterArrive(t, relaxed != 0, site);
}

void __ext_emu_cluster_wait(int32_t site) {
  Thread &t = current("__ext_emu_cluster_wait");
  t.launch->barriers.clusterWait(t, site);
}

int64_t __ext_emu_warp_sync(int32_t site, int32_t width) {
  Thread &t = current("__ext_emu_warp_sync");
  return t.launch->barriers.warpSync(t, site, width);
}

void __ext_emu_access(int64_t addr, int64_t bytes, int32_t kind, int32_t site) {
  Thread &t = current("__ext_emu_access");
  t.launch->access(t, addr, bytes, kind, site);
}

void __ext_emu_printf(const char *format, ...) {
  Thread &t = current("__ext_emu_printf");
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(length > 0 ? size_t(length) : 0, '\0');
  if (length > 0)
    std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  PrintedOutput::hold(t, std::move(text));
}

void __ext_emu_assert_fail(const char *message, int32_t site) {
  Thread &t = current("__ext_emu_assert_fail");
  t.launch->assertFailed(t, message, site);
}

void __ext_emu_async_copy(int64_t dst, int64_t src, int64_t dstBytes,
                          int64_t srcBytes, int32_t site) {
  Thread &t = current("__ext_emu_async_copy");
  t.launch->copies.issueCopy(t, dst, src, dstBytes, srcBytes, site);
}

void __ext_emu_async_commit(void) {
  Thread &t = current("__ext_emu_async_commit");
  t.launch->copies.commitCopies(t);
}

void __ext_emu_async_wait(int32_t pending, int32_t site) {
  Thread &t = current("__ext_emu_async_wait");
  t.launch->copies.waitCopies(t, pending);
}

namespace {
/// Striped locks for global atomics' read-modify-writes (held for a load,
/// an op and a store: spinning is cheaper than sleeping).
std::atomic<bool> atomicLocks[4096];
std::atomic<bool> &atomicLock(int64_t addr) {
  uint64_t a = uint64_t(addr) >> 2;
  return atomicLocks[(a ^ (a >> 12)) % 4096];
}
} // namespace

void __ext_emu_atomic_begin(int64_t addr) {
  std::atomic<bool> &lock = atomicLock(addr);
  while (lock.exchange(true, std::memory_order_acquire))
    while (lock.load(std::memory_order_relaxed))
      std::this_thread::yield();
}

void __ext_emu_atomic_end(int64_t addr) {
  atomicLock(addr).store(false, std::memory_order_release);
}

void __ext_emu_name_shared(const char *name, int64_t addr, int64_t bytes) {
  Thread &t = current("__ext_emu_name_shared");
  t.launch->nameShared(t, name, addr, bytes);
}

} // extern "C"
