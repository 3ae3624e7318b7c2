//===- FiberScheduler.h - GPU threads as cooperative fibers -----*- C++ -*-===//
//
// One launch of the CPU emulation: each GPU thread is a Boost.Context fiber
// with a small fixed stack, switched only at yield points (barriers, warp
// collectives, instrumented memory accesses, atomics and fences). The kernel
// side calls in through the C entry points (Emulator.cpp), which find the
// running thread with currentThread(). Race detection, when enabled, is a
// RaceDetector the scheduler feeds at each access.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_FIBERSCHEDULER_H
#define EXT_RUNTIME_CPU_FIBERSCHEDULER_H

#include "BankCounter.h"
#include "Emulator.h"
#include "Progress.h"
#include "RaceDetector.h"

#include <boost/context/fiber.hpp>

#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace ext::emu {

class FiberScheduler;
class StackPool;
struct Block;

enum class ThreadState { Ready, Running, AtBarrier, AtWarpSync, Done };

/// An asynchronous global-to-shared copy (nvgpu.device_async_copy) that has
/// been issued and not landed: `srcBytes` of `src` then zeros up to
/// `dstBytes` at `dst`.
struct AsyncCopy {
  char *dst;
  const char *src;
  int64_t dstBytes, srcBytes;
  int32_t site;
};

struct Thread {
  FiberScheduler *launch = nullptr;
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
  /// What the race detector keeps for it.
  BlockRaceState race;
  /// gpu.printf output, written when the block finishes.
  std::vector<PrintedLine> printed;
  ~Block();
};

class FiberScheduler {
public:
  FiberScheduler(const LaunchParams &params, const Config &config);
  ~FiberScheduler();

  /// Runs the grid to completion; returns the error, empty on success.
  std::string run();

  const LaunchParams &params() const { return p; }
  int32_t warpSize() const { return c.warpSize; }

  //===--------------------------------------------------------------------===//
  // Thread side (runs on a fiber)
  //===--------------------------------------------------------------------===//

  void barrier(Thread &t, int32_t site);
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

private:
  const LaunchParams &p;
  const Config &c;
  std::mt19937_64 rng;
  StackPool &pool;
  int64_t blockThreads = 0, totalBlocks = 0, sharedBytes = 0;
  /// The order threads start and are released from barriers in.
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
  /// Null unless Config::racecheck.
  std::unique_ptr<RaceDetector> races;
  LaunchProgress progress;
  /// Null unless Config::bankConflicts.
  std::unique_ptr<BankCounter> banks;

  const std::string &site(int32_t index) const;
  std::string where(const Thread &t) const;
  void fail(std::string message);
  /// Fails the launch and suspends `t`: its `bytes`-byte `what` at `site`
  /// is misaligned, where a GPU faults; `detail` says where it points.
  void failMisaligned(Thread &t, int64_t bytes, const char *what, int32_t site,
                      const std::string &detail);

  // Scheduler side.
  void admitBlocks();
  void push(Thread &t);
  Block *chooseBlock();
  Thread *pick();
  void retireFinishedBlocks();
  /// Writes a block's gpu.printf lines, each warp's in lane order.
  static void flushPrinted(Block &b);
  std::string describeDeadlock() const;
  void abandonSuspendedThreads();

  // Thread side.
  void suspend(Thread &t);
  void yield(Thread &t);
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

/// The thread running on this OS thread; null outside a launch.
Thread *currentThread();

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_FIBERSCHEDULER_H
