//===- EmulatorTest.cpp - the CPU emulation scheduler ---------------------===//
//
// Kernels here are C++ functions calling the runtime's C entry points, the
// way lowered kernels do.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "gtest/gtest.h"

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

using namespace ext::emu;

namespace {

constexpr int32_t kShared = EXT_EMU_WORKGROUP | EXT_EMU_LOAD;
constexpr int32_t kAtomic = EXT_EMU_GLOBAL | EXT_EMU_RMW | EXT_EMU_ATOMIC;

int64_t linearThreadId() {
  return __ext_emu_thread_id(0) +
         __ext_emu_block_dim(0) *
             (__ext_emu_thread_id(1) +
              __ext_emu_block_dim(1) * __ext_emu_thread_id(2));
}

LaunchParams params(void (*kernel)(void **), void **args, Dim3 grid,
                    Dim3 block, int64_t shared = 0) {
  LaunchParams p;
  p.kernel = "test";
  p.launchSite = "here";
  p.sites = {"site0", "site1", "site2"};
  p.trampoline = kernel;
  p.args = args;
  p.grid = grid;
  p.block = block;
  p.staticShared = shared;
  return p;
}

Config config(Policy policy, uint64_t seed = 0) {
  Config c;
  c.policy = policy;
  c.seed = seed;
  return c;
}

// out[t] = (t + 1) % n, read through workgroup memory across a barrier, or
// without one (then some threads read before their neighbour wrote).
template <bool WithBarrier>
void rotateKernel(void **args) {
  auto *out = static_cast<int64_t *>(args[0]);
  auto *shared = static_cast<int64_t *>(__ext_emu_shared_base());
  int64_t n = __ext_emu_block_dim(0), t = __ext_emu_thread_id(0);
  __ext_emu_access(0, 8, EXT_EMU_WORKGROUP | EXT_EMU_STORE, 0);
  shared[t] = t;
  if (WithBarrier)
    __ext_emu_barrier(1);
  __ext_emu_access(0, 8, kShared, 2);
  out[t] = shared[(t + 1) % n];
}

class EmulatorPolicyTest : public ::testing::TestWithParam<Policy> {};

TEST_P(EmulatorPolicyTest, BarrierOrdersWorkgroupMemory) {
  for (uint64_t seed : {0, 1, 7}) {
    std::vector<int64_t> out(64, -2);
    void *args[] = {out.data()};
    std::string error = launch(params(rotateKernel<true>, args, {1, 1, 1},
                                      {64, 1, 1}, 64 * 8),
                               config(GetParam(), seed));
    ASSERT_EQ(error, "");
    for (int64_t t = 0; t < 64; ++t)
      EXPECT_EQ(out[t], (t + 1) % 64) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, EmulatorPolicyTest,
                         ::testing::Values(Policy::Random, Policy::RoundRobin,
                                           Policy::Sequential));

TEST(Emulator, MissingBarrierShowsUnderRandomAndSequential) {
  for (Policy policy : {Policy::Random, Policy::Sequential}) {
    std::vector<int64_t> out(64, -2);
    void *args[] = {out.data()};
    ASSERT_EQ(launch(params(rotateKernel<false>, args, {1, 1, 1}, {64, 1, 1},
                            64 * 8),
                     config(policy)),
              "");
    int wrong = 0;
    for (int64_t t = 0; t < 64; ++t)
      wrong += out[t] != (t + 1) % 64;
    EXPECT_GT(wrong, 0);
  }
}

TEST(Emulator, RoundRobinIsLockStep) {
  // Each thread's k-th yield point runs before any thread's (k+1)-th: the
  // missing barrier goes unnoticed, which is why it is not the default.
  std::vector<int64_t> out(64, -2);
  void *args[] = {out.data()};
  ASSERT_EQ(launch(params(rotateKernel<false>, args, {1, 1, 1}, {64, 1, 1},
                          64 * 8),
                   config(Policy::RoundRobin)),
            "");
  for (int64_t t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], (t + 1) % 64);
}

TEST(Emulator, SeedsChangeTheInterleaving) {
  std::set<std::vector<int64_t>> outcomes;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    std::vector<int64_t> out(64, -2);
    void *args[] = {out.data()};
    ASSERT_EQ(launch(params(rotateKernel<false>, args, {1, 1, 1}, {64, 1, 1},
                            64 * 8),
                     config(Policy::Random, seed)),
              "");
    outcomes.insert(out);
  }
  EXPECT_GT(outcomes.size(), 1u);
  // ... and one seed always gives the same one.
  std::vector<int64_t> a(64), b(64);
  void *argsA[] = {a.data()}, *argsB[] = {b.data()};
  launch(params(rotateKernel<false>, argsA, {1, 1, 1}, {64, 1, 1}, 512),
         config(Policy::Random, 3));
  launch(params(rotateKernel<false>, argsB, {1, 1, 1}, {64, 1, 1}, 512),
         config(Policy::Random, 3));
  EXPECT_EQ(a, b);
}

void idsKernel(void **args) {
  auto *seen = static_cast<std::vector<int64_t> *>(args[0]);
  int64_t b = __ext_emu_block_id(0) +
              __ext_emu_grid_dim(0) *
                  (__ext_emu_block_id(1) +
                   __ext_emu_grid_dim(1) * __ext_emu_block_id(2));
  int64_t n = __ext_emu_block_dim(0) * __ext_emu_block_dim(1) *
              __ext_emu_block_dim(2);
  // Blocks run on several workers (OS threads): the host vector is shared.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  seen->push_back(b * n + linearThreadId());
}

TEST(Emulator, ThreeDimensionalIdsCoverTheGrid) {
  std::vector<int64_t> seen;
  void *args[] = {&seen};
  Config c = config(Policy::Random, 5);
  c.maxResidentThreads = 24; // two blocks of 12 resident at a time
  ASSERT_EQ(launch(params(idsKernel, args, {2, 3, 2}, {3, 2, 2}), c), "");
  std::set<int64_t> unique(seen.begin(), seen.end());
  EXPECT_EQ(seen.size(), 144u);
  EXPECT_EQ(unique.size(), 144u);
  EXPECT_EQ(*unique.rbegin(), 143);
}

void exitEarlyKernel(void **) {
  if (__ext_emu_thread_id(0) == 3)
    return;
  __ext_emu_barrier(1);
}

TEST(Emulator, ThreadExitingBeforeABarrierIsAnError) {
  for (Policy policy :
       {Policy::Random, Policy::RoundRobin, Policy::Sequential}) {
    std::string error = launch(
        params(exitEarlyKernel, nullptr, {2, 1, 1}, {8, 1, 1}), config(policy));
    EXPECT_NE(error.find("kernel 'test' (launched at here)"), std::string::npos)
        << error;
    EXPECT_NE(error.find("thread (3, 0, 0) of block (0, 0, 0)"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("gpu.barrier at site1"), std::string::npos) << error;
  }
}

void divergentBarrierKernel(void **) {
  __ext_emu_barrier(__ext_emu_thread_id(0) < 2 ? 1 : 2);
}

TEST(Emulator, DifferentBarriersAreAnError) {
  std::string error =
      launch(params(divergentBarrierKernel, nullptr, {1, 1, 1}, {4, 1, 1}),
             config(Policy::RoundRobin));
  EXPECT_NE(error.find("every thread of a block must reach the same barrier"),
            std::string::npos)
      << error;
}

void warpDeadlockKernel(void **) {
  // Warp 0 waits at a collective its lane 5 never reaches: lane 5 waits at a
  // barrier the others never reach.
  if (__ext_emu_thread_id(0) == 5)
    __ext_emu_barrier(1);
  else
    __ext_emu_warp_sync(2, 32);
}

TEST(Emulator, DeadlockIsReportedNotHung) {
  std::string error =
      launch(params(warpDeadlockKernel, nullptr, {1, 1, 1}, {32, 1, 1}),
             config(Policy::Random));
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  EXPECT_NE(error.find("1 thread waits at the gpu.barrier at site1"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("31 threads wait at the warp collective at site2"),
            std::string::npos)
      << error;
}

void warpMaskKernel(void **args) {
  auto *masks = static_cast<int64_t *>(args[0]);
  int64_t t = __ext_emu_thread_id(0);
  masks[t] = __ext_emu_warp_sync(0, t < 32 ? 16 : 32);
}

TEST(Emulator, WarpSyncReportsParticipants) {
  // 40 threads: warp 0 syncs its first 16 lanes, warp 1 has 8 lanes.
  std::vector<int64_t> masks(40);
  void *args[] = {masks.data()};
  ASSERT_EQ(launch(params(warpMaskKernel, args, {1, 1, 1}, {40, 1, 1}),
                   config(Policy::Random)),
            "");
  for (int t = 0; t < 16; ++t)
    EXPECT_EQ(masks[t], 0xffff);
  for (int t = 16; t < 32; ++t)
    EXPECT_EQ(masks[t], int64_t(1) << t); // not a participant
  for (int t = 32; t < 40; ++t)
    EXPECT_EQ(masks[t], 0xff);
}

void mixedWidthKernel(void **args) {
  auto *masks = static_cast<int64_t *>(args[0]);
  int64_t t = __ext_emu_thread_id(0);
  // Lanes 16..31 skip both width-16 collectives and wait at the width-32 one
  // while lanes 0..15 are still at the first.
  __ext_emu_warp_sync(0, 16);
  __ext_emu_warp_sync(1, 16);
  masks[t] = __ext_emu_warp_sync(2, 32);
}

TEST(Emulator, LanesOutsideAWidthRunAhead) {
  for (Policy policy :
       {Policy::Random, Policy::RoundRobin, Policy::Sequential}) {
    std::vector<int64_t> masks(32);
    void *args[] = {masks.data()};
    ASSERT_EQ(launch(params(mixedWidthKernel, args, {1, 1, 1}, {32, 1, 1}),
                     config(policy, 2)),
              "");
    for (int t = 0; t < 32; ++t)
      EXPECT_EQ(masks[t], 0xffffffff);
  }
}

// Block 1 publishes a value and raises a flag; block 0 spins on the flag.
// Block 0 starts first, so this only finishes if both are resident and the
// spin yields to the other block.
void flagKernel(void **args) {
  auto *flag = static_cast<std::atomic<int64_t> *>(args[0]);
  auto *value = static_cast<int64_t *>(args[1]);
  if (__ext_emu_block_id(0) == 1) {
    *value = 42;
    __ext_emu_access(0, 8, kAtomic, 0);
    flag->store(1);
    return;
  }
  while (true) {
    __ext_emu_access(0, 8, kAtomic, 1);
    if (flag->load())
      break;
  }
  value[1 + __ext_emu_thread_id(0)] = value[0];
}

TEST(Emulator, CrossBlockFlagWaitMakesProgress) {
  for (Policy policy :
       {Policy::Random, Policy::RoundRobin, Policy::Sequential}) {
    std::atomic<int64_t> flag{0};
    std::vector<int64_t> value(5, 0);
    void *args[] = {&flag, value.data()};
    ASSERT_EQ(launch(params(flagKernel, args, {2, 1, 1}, {4, 1, 1}),
                     config(policy)),
              "");
    EXPECT_EQ(value, (std::vector<int64_t>{42, 42, 42, 42, 42}));
  }
}

TEST(Emulator, SpinOnANonResidentBlockIsALivelockError) {
  std::atomic<int64_t> flag{0};
  std::vector<int64_t> value(5, 0);
  void *args[] = {&flag, value.data()};
  Config c = config(Policy::Random);
  c.maxResidentThreads = 4; // block 1 cannot start while block 0 spins
  c.spinLimit = 10000;
  std::string error = launch(params(flagKernel, args, {2, 1, 1}, {4, 1, 1}), c);
  EXPECT_NE(error.find("no progress after 10000"), std::string::npos) << error;
  EXPECT_NE(error.find("1 of 2 blocks are resident"), std::string::npos)
      << error;
}

TEST(Emulator, BadLaunchesAreErrors) {
  EXPECT_NE(launch(params(idsKernel, nullptr, {1, 1, 1}, {1025, 1, 1}),
                   config(Policy::Random))
                .find("exceeds 1024"),
            std::string::npos);
  EXPECT_NE(launch(params(idsKernel, nullptr, {0, 1, 1}, {1, 1, 1}),
                   config(Policy::Random))
                .find("must be positive"),
            std::string::npos);
}

// Each block sums its threads' ids through workgroup memory in an order the
// interleaving decides (racy on purpose: the last writer wins), then
// writes what it saw. Only a block's own interleaving matters, so the
// result may depend on the seed but never on the worker count.
void lastWriterKernel(void **args) {
  auto *out = static_cast<int64_t *>(args[0]);
  auto *shared = static_cast<int64_t *>(__ext_emu_shared_base());
  int64_t t = __ext_emu_thread_id(0), b = __ext_emu_block_id(0);
  __ext_emu_access(0, 8, EXT_EMU_WORKGROUP | EXT_EMU_STORE, 0);
  shared[0] = t;
  __ext_emu_access(0, 8, EXT_EMU_WORKGROUP | EXT_EMU_LOAD, 1);
  out[b * __ext_emu_block_dim(0) + t] = shared[0];
}

TEST(Emulator, ResultsDoNotDependOnTheWorkerCount) {
  for (uint64_t seed : {0u, 3u}) {
    std::vector<std::vector<int64_t>> results;
    for (int32_t threads : {1, 2, 3, 8}) {
      std::vector<int64_t> out(16 * 32, -1);
      void *args[] = {out.data()};
      Config c = config(Policy::Random, seed);
      c.threads = threads;
      ASSERT_EQ(launch(params(lastWriterKernel, args, {16, 1, 1}, {32, 1, 1},
                              64),
                       c),
                "");
      results.push_back(out);
    }
    for (const std::vector<int64_t> &r : results)
      EXPECT_EQ(r, results.front()) << "seed " << seed;
  }
}

// Two one-thread grids in flight together: each counts itself in and waits
// for the other (upstream's concurrent-kernels test). Run one after the
// other, the first would spin forever.
void meetKernel(void **args) {
  auto *count = static_cast<std::atomic<int64_t> *>(args[0]);
  __ext_emu_access(0, 8, kAtomic, 0);
  count->fetch_add(1);
  while (true) {
    __ext_emu_access(0, 8, kAtomic, 1);
    if (count->load() >= 2)
      break;
  }
}

TEST(Emulator, GridsInFlightWaitForEachOther) {
  for (int32_t threads : {1, 2}) {
    std::atomic<int64_t> count{0};
    void *countPtr = &count;
    void *args[] = {&countPtr};
    Config c = config(Policy::Random);
    c.threads = threads;
    c.spinLimit = 1u << 20;
    std::string error;
    auto trampoline = [](void **a) {
      void *inner[] = {*static_cast<void **>(a[0])};
      meetKernel(inner);
    };
    LaunchParams p = params(trampoline, args, {1, 1, 1}, {1, 1, 1});
    Event *first = launchAsync(p, c, {sizeof(void *)}, {}, error);
    Event *second = launchAsync(p, c, {sizeof(void *)}, {}, error);
    ASSERT_TRUE(first && second) << error;
    EXPECT_EQ(waitEvents({first, second}), "");
    EXPECT_EQ(count.load(), 2);
    // A grid after both (a stream's order) sees their work.
    Event *joined = joinEvents({first, second});
    Event *third = launchAsync(p, c, {sizeof(void *)}, {joined}, error);
    EXPECT_EQ(waitEvents({third}), "");
    EXPECT_EQ(count.load(), 3);
  }
}

// Blocks 3 and 5 fail at different barriers (their thread 0 exits while
// the others wait); whatever the workers and the timing, the launch
// reports block 3's failure.
TEST(Emulator, TheLowestFailingBlockIsReported) {
  auto kernel = [](void **) {
    int64_t b = __ext_emu_block_id(0);
    if ((b == 3 || b == 5) && __ext_emu_thread_id(0) == 0)
      return;
    if (b == 3 || b == 5)
      __ext_emu_barrier(int32_t(b == 3 ? 0 : 1));
  };
  for (int32_t threads : {1, 2, 4})
    for (int repeat = 0; repeat < 5; ++repeat) {
      Config c = config(Policy::Random);
      c.threads = threads;
      std::string error =
          launch(params(kernel, nullptr, {8, 1, 1}, {4, 1, 1}), c);
      EXPECT_NE(error.find("of block (3, 0, 0)"), std::string::npos) << error;
      EXPECT_NE(error.find("site0"), std::string::npos) << error;
    }
}

TEST(Emulator, ConfigFromEnvironment) {
  std::string error;
  setenv("EXT_EMU_SCHEDULE", "sequential", 1);
  setenv("EXT_EMU_SEED", "12", 1);
  Config c = Config::fromEnvironment(error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(c.policy, Policy::Sequential);
  EXPECT_EQ(c.seed, 12u);
  setenv("EXT_EMU_SEED", "-1", 1);
  Config::fromEnvironment(error);
  EXPECT_NE(error.find("EXT_EMU_SEED='-1'"), std::string::npos);
  error.clear();
  unsetenv("EXT_EMU_SEED");
  setenv("EXT_EMU_THREADS", "3", 1);
  EXPECT_EQ(Config::fromEnvironment(error).threads, 3);
  EXPECT_EQ(error, "");
  setenv("EXT_EMU_THREADS", "99999", 1);
  Config::fromEnvironment(error);
  EXPECT_NE(error.find("EXT_EMU_THREADS='99999'"), std::string::npos);
  unsetenv("EXT_EMU_THREADS");
  unsetenv("EXT_EMU_SCHEDULE");
  unsetenv("EXT_EMU_SEED");
}

} // namespace
