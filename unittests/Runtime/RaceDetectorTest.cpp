//===- RaceDetectorTest.cpp - the emulator's race detector ----------------===//
//
// The detector alone, fed accesses the way the scheduler does: which thread
// of which block touches what, and when blocks pass barriers.
//
//===----------------------------------------------------------------------===//

#include "RaceDetector.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "gtest/gtest.h"

using namespace ext::emu;

namespace {

constexpr int32_t kSharedLoad = EXT_EMU_WORKGROUP | EXT_EMU_LOAD;
constexpr int32_t kSharedStore = EXT_EMU_WORKGROUP | EXT_EMU_STORE;
constexpr int32_t kGlobalLoad = EXT_EMU_GLOBAL | EXT_EMU_LOAD;
constexpr int32_t kGlobalStore = EXT_EMU_GLOBAL | EXT_EMU_STORE;
constexpr int32_t kGlobalAtomic =
    EXT_EMU_GLOBAL | EXT_EMU_RMW | EXT_EMU_ATOMIC | EXT_EMU_ACQ_REL;
constexpr int32_t kRelaxedStore = EXT_EMU_GLOBAL | EXT_EMU_STORE | EXT_EMU_ATOMIC;
constexpr int32_t kRelaxedLoad = EXT_EMU_GLOBAL | EXT_EMU_LOAD | EXT_EMU_ATOMIC;

/// Two blocks of four threads and 16 bytes of workgroup memory each.
struct Fixture {
  LaunchParams params;
  char shared[2][16] = {};
  BlockRaceState blocks[2];
  int64_t global[4] = {};
  std::unique_ptr<RaceDetector> detector;

  Fixture() {
    params.kernel = "k";
    params.sites = {"store site", "load site", "atomic site"};
    params.grid = {2, 1, 1};
    params.block = {4, 1, 1};
    params.staticShared = 16;
    params.buffers.push_back({"tile", /*shared=*/true, 0, 16});
    detector = std::make_unique<RaceDetector>(params, 16);
    for (BlockRaceState &b : blocks)
      detector->initBlock(b);
  }

  AccessingThread thread(int64_t block, int64_t t) {
    return {uint32_t(block * 4 + t), block,   blocks[block],
            shared[block],           nullptr, 0};
  }
  void sharedAccess(int64_t block, int64_t t, int64_t byte, int32_t kind,
                    int32_t site) {
    detector->recordAccess(thread(block, t),
                           reinterpret_cast<int64_t>(&shared[block][byte]), 4,
                           kind, site);
  }
  void globalAccess(int64_t block, int64_t t, int64_t word, int32_t kind,
                    int32_t site) {
    detector->recordAccess(thread(block, t),
                           reinterpret_cast<int64_t>(&global[word]), 8, kind,
                           site);
  }
};

TEST(RaceDetector, UnorderedSharedAccessesRace) {
  Fixture f;
  f.sharedAccess(0, 0, 4, kSharedStore, 0);
  f.sharedAccess(0, 1, 4, kSharedLoad, 1);
  ASSERT_FALSE(f.detector->empty());
  EXPECT_EQ(f.detector->summary(),
            "racecheck: 1 data race (1 conflicting access pair)\n"
            "ext-emu: race: read-after-write on shared memory, byte 4 of "
            "tile: write by thread (0, 0, 0) of block (0, 0, 0) at store "
            "site, then read by thread (1, 0, 0) of block (0, 0, 0) at load "
            "site (1 time)");
}

TEST(RaceDetector, BarrierOrdersSharedAccesses) {
  Fixture f;
  f.sharedAccess(0, 0, 4, kSharedStore, 0);
  RaceDetector::barrierReleased(f.blocks[0]);
  f.sharedAccess(0, 1, 4, kSharedLoad, 1);
  // The same thread never races with itself.
  f.sharedAccess(0, 1, 4, kSharedStore, 0);
  EXPECT_TRUE(f.detector->empty()) << f.detector->summary();
}

TEST(RaceDetector, BlocksHaveTheirOwnSharedMemory) {
  Fixture f;
  f.sharedAccess(0, 0, 0, kSharedStore, 0);
  f.sharedAccess(1, 0, 0, kSharedStore, 0);
  EXPECT_TRUE(f.detector->empty()) << f.detector->summary();
}

TEST(RaceDetector, NamedViewsAppearInReports) {
  Fixture f;
  f.detector->nameShared(f.shared[0], "view A",
                         reinterpret_cast<int64_t>(&f.shared[0][0]), 8);
  f.sharedAccess(0, 2, 4, kSharedStore, 0);
  f.sharedAccess(0, 3, 4, kSharedStore, 0);
  EXPECT_NE(f.detector->summary().find(
                "write-after-write on shared memory, byte 4 of tile, in view "
                "A at byte 4"),
            std::string::npos)
      << f.detector->summary();
}

TEST(RaceDetector, GlobalAccessesAcrossBlocksNeedAtomics) {
  Fixture f;
  f.globalAccess(0, 0, 0, kGlobalStore, 0);
  f.globalAccess(1, 0, 0, kGlobalLoad, 1);
  EXPECT_NE(f.detector->summary().find("read-after-write on global memory"),
            std::string::npos)
      << f.detector->summary();

  // Block 0 writes, then releases through an atomic that block 1 acquires
  // before it reads: ordered. Atomics do not race with each other.
  Fixture g;
  g.globalAccess(0, 0, 0, kGlobalStore, 0);
  g.globalAccess(0, 0, 1, kGlobalAtomic, 2);
  g.globalAccess(1, 0, 1, kGlobalAtomic, 2);
  g.globalAccess(1, 0, 0, kGlobalLoad, 1);
  EXPECT_TRUE(g.detector->empty()) << g.detector->summary();
}

/// The fixup's flag protocol: relaxed atomics ordered by fences (C++'s
/// fence rules). Without the writer's release fence, or the reader's
/// acquire fence, the data write and read race.
TEST(RaceDetector, RelaxedAtomicsOrderOnlyThroughFences) {
  auto handshake = [](bool releaseFence, bool acquireFence) {
    auto f = std::make_unique<Fixture>();
    f->globalAccess(0, 0, 0, kGlobalStore, 0);
    if (releaseFence)
      f->detector->recordFence(f->thread(0, 0),
                               EXT_EMU_FENCE | EXT_EMU_RELEASE);
    f->globalAccess(0, 0, 1, kRelaxedStore, 2);
    f->globalAccess(1, 0, 1, kRelaxedLoad, 2);
    if (acquireFence)
      f->detector->recordFence(f->thread(1, 0),
                               EXT_EMU_FENCE | EXT_EMU_ACQUIRE);
    f->globalAccess(1, 0, 0, kGlobalLoad, 1);
    return f;
  };
  EXPECT_TRUE(handshake(true, true)->detector->empty())
      << handshake(true, true)->detector->summary();
  for (auto [rel, acq] : {std::pair{false, true}, std::pair{true, false},
                          std::pair{false, false}}) {
    std::string summary = handshake(rel, acq)->detector->summary();
    EXPECT_NE(summary.find("read-after-write on global memory"),
              std::string::npos)
        << "release fence " << rel << ", acquire fence " << acq << ": "
        << summary;
  }
  // A release fence publishes only what came before it.
  Fixture late;
  late.detector->recordFence(late.thread(0, 0),
                             EXT_EMU_FENCE | EXT_EMU_RELEASE);
  late.globalAccess(0, 0, 0, kGlobalStore, 0);
  late.globalAccess(0, 0, 1, kRelaxedStore, 2);
  late.globalAccess(1, 0, 1, kRelaxedLoad, 2);
  late.detector->recordFence(late.thread(1, 0),
                             EXT_EMU_FENCE | EXT_EMU_ACQUIRE);
  late.globalAccess(1, 0, 0, kGlobalLoad, 1);
  EXPECT_FALSE(late.detector->empty());
}

TEST(RaceDetector, RacesAreCountedPerSitePair) {
  Fixture f;
  for (int t = 1; t < 4; ++t) {
    f.sharedAccess(0, 0, 0, kSharedStore, 0);
    f.sharedAccess(0, t, 0, kSharedLoad, 1);
  }
  std::string summary = f.detector->summary();
  EXPECT_NE(summary.find("racecheck: 2 data races (5 conflicting access "
                         "pairs)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("(3 times)"), std::string::npos) << summary;
}

} // namespace
