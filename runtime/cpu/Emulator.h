//===- Emulator.h - run GPU grids as cooperative fibers ---------*- C++ -*-===//
//
// The scheduler behind the CPU emulation of GPU kernels. Each GPU thread is a
// Boost.Context fiber with a small fixed stack; threads only switch at yield
// points (barriers, warp collectives, instrumented memory accesses, atomics
// and fences), so a block's interleaving is deterministic for a given Config
// and block index.
//
// A launch's blocks are spread over worker threads, one per core
// (Config::threads): they are admitted in linear order, each worker taking
// the next while it holds less than its share and the device has room (at
// most Config::maxResidentThreads threads, at least one block), the next
// one when a resident block finishes. Workgroup yield points switch among the threads of the current
// block (only they share its memory); atomics and fences, where blocks can
// wait on each other, and a block with nothing left to run move the worker to
// another resident block, so spin-waits across resident blocks (and across
// kernels on different streams) make progress. With thread block clusters,
// a worker admits whole clusters, whose blocks stay resident together until
// all of them finished. FiberScheduler.h has the details.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_EMULATOR_H
#define EXT_RUNTIME_CPU_EMULATOR_H

#include <cstdint>
#include <string>
#include <vector>

struct ExtEmuOptions;

namespace ext::emu {

/// How the scheduler picks the next thread at a yield point.
enum class Policy {
  /// Seeded pseudo-random choice among the runnable threads of the block
  /// (and of the blocks, when switching): threads drift apart, so a missing
  /// barrier shows.
  Random,
  /// Strict rotation in thread order (blocks in admission order): threads
  /// advance in lock step.
  RoundRobin,
  /// A thread runs until it blocks (barrier, warp collective) or reaches an
  /// atomic or fence; workgroup accesses do not switch.
  Sequential,
};

struct Config {
  uint64_t seed = 0;
  Policy policy = Policy::Random;
  /// Usable stack per thread (each also has a guard page).
  size_t stackBytes = 64 * 1024;
  /// Resident blocks are admitted while their threads fit in this bound.
  /// Each resident thread's stack and guard page are two memory mappings, and
  /// Linux allows 65530 per process by default (vm.max_map_count): 16384
  /// threads leave room for the JIT and the rest of the process.
  int64_t maxResidentThreads = 16384;
  /// Consecutive yields at atomics and fences without progress (a thread
  /// exiting, a barrier or warp collective completing, a workgroup access)
  /// after which a launch is reported as a livelock.
  uint64_t spinLimit = uint64_t(1) << 26;
  /// Race detection over the instrumented accesses (see docs/CpuEmulation.md,
  /// "Race detection"): races are reported when the launch ends, as its error.
  bool racecheck = false;
  /// Feedback on long launches (Progress.h): EXT_EMU_PROGRESS unset is
  /// automatic, 0 none, 1 always.
  int progress = -1;
  /// Count the wavefronts of every warp-wide workgroup access and report
  /// them per site when the launch ends (BankCounter.h).
  bool bankConflicts = false;
  /// Lanes per warp: 32 (NVIDIA) or 64 (AMD CDNA waves).
  int32_t warpSize = 32;
  /// Worker threads a launch spreads its blocks over; 0 is one per core
  /// this process may run on. Race detection runs a launch on one worker
  /// (its happens-before bookkeeping spans blocks).
  int32_t threads = 0;

  /// The defaults overridden by EXT_EMU_SEED, EXT_EMU_SCHEDULE
  /// (random|round-robin|sequential), EXT_EMU_STACK_KB,
  /// EXT_EMU_MAX_RESIDENT_THREADS, EXT_EMU_SPIN_LIMIT, EXT_EMU_RACECHECK (0|1)
  /// and EXT_EMU_PROGRESS (0|1), EXT_EMU_BANK_CONFLICTS (0|1),
  /// EXT_EMU_WARP_SIZE (32|64), EXT_EMU_THREADS; a malformed value is an
  /// error in `error`.
  static Config fromEnvironment(std::string &error) {
    return resolve(nullptr, error);
  }
  /// The fields `given` sets (may be null), the environment for the others.
  static Config resolve(const ExtEmuOptions *given, std::string &error);
};

struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  int64_t count() const { return x * y * z; }
};

/// "(x, y, z)".
std::string formatDim(const Dim3 &d);
/// The coordinates of the `linear`-th point of `shape`, x fastest.
Dim3 delinearize(int64_t linear, const Dim3 &shape);

struct LaunchParams {
  std::string kernel;
  std::string launchSite;
  /// Source locations indexed by the `site` arguments of the entry points.
  std::vector<std::string> sites;
  void (*trampoline)(void **) = nullptr;
  void **args = nullptr;
  /// `cluster`: the blocks of one thread block cluster (1x1x1 without
  /// clusters); the grid is a whole number of them.
  Dim3 grid, block, cluster;
  int64_t staticShared = 0, dynamicShared = 0;
  /// The kernel's static private memory per thread (EXT_EMU_BUFFER_PRIVATE),
  /// on its fiber stack: the launch grows the stacks by it.
  int64_t privateBytes = 0;
  /// Named memory ranges, for race reports: kernel arguments (addresses) and
  /// workgroup buffers (offsets into workgroup memory).
  struct Buffer {
    std::string name;
    bool shared = false;
    int64_t start = 0, bytes = 0;
  };

  std::vector<Buffer> buffers;
};

/// Where a block's dynamic shared memory starts: after the static part,
/// 1024-byte aligned, so that TMA boxes with the 128-byte swizzle (whose
/// pattern repeats every 1024 bytes) can be placed at its start, as kernels
/// written for Hopper do.
inline int64_t dynamicSharedOffset(const LaunchParams &p) {
  return (p.staticShared + 1023) / 1024 * 1024;
}
/// Swizzle<B,4,3> of a shared-window address (B = 3, 2, 1 for `swizzle` =
/// 128, 64, 32 bytes): the 16-byte chunk (bits 4..) XOR the row within the
/// pattern's repeat (bits 7..). TMA writes and wgmma reads both go through
/// it, so the two agree by construction.
inline int64_t swizzledSharedAddress(int64_t addr, int32_t swizzle) {
  int64_t mask = swizzle == 128 ? 7 : swizzle == 64 ? 3 : swizzle == 32 ? 1 : 0;
  return addr ^ (((addr >> 7) & mask) << 4);
}
/// The bytes of a block's shared window: static, padding, dynamic.
inline int64_t sharedWindowBytes(const LaunchParams &p) {
  return dynamicSharedOffset(p) + p.dynamicShared;
}

/// Runs a grid to completion. Returns an empty string on success, otherwise
/// the diagnostic; after an error the threads still suspended are abandoned
/// (their stacks go back to the pool, nothing is unwound through kernel
/// frames).
std::string launch(const LaunchParams &params, const Config &config);

/// What is wrong with a launch's parameters (empty if nothing).
std::string validateLaunch(const LaunchParams &params);

struct Event;
/// Starts a grid once `deps` are done and returns at once: its event, for
/// `wait` and as a later launch's dependency. `argBytes` gives the size of
/// each argument `params.args` points to (copied now). A launch that cannot
/// start (a bad grid) returns its error in `error` and no event.
Event *launchAsync(const LaunchParams &params, const Config &config,
                   const std::vector<int64_t> &argBytes,
                   const std::vector<Event *> &deps, std::string &error,
                   bool sync = false);
/// An event done when `deps` are (`gpu.wait async`).
Event *joinEvents(const std::vector<Event *> &deps);
/// Waits for `events` (every asynchronous launch in flight when empty);
/// returns the
/// first error among them and the launches they depend on, each error once.
std::string waitEvents(const std::vector<Event *> &events);

/// A kernel entry point (`entry`) called on a host thread outside any
/// launch: there is no launch to fail and no caller that expects an error,
/// so this reports and aborts. Compiled code never gets here
/// (ext-cpu-pipeline refuses GPU ops outside kernels); only a C caller of
/// the ABI that skips __ext_emu_launch does.
[[noreturn]] void outsideLaunch(const char *entry);

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_EMULATOR_H
