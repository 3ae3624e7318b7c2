//===- RaceDetector.h - data races among emulated GPU threads ---*- C++ -*-===//
//
// The race detector of the CPU emulation (docs/CpuEmulation.md, "Race
// detection"). It sees the accesses the scheduler reports at its yield points
// and keeps a shadow per byte: the last write and a few reads since, each
// with its thread, its block's barrier epoch and release clock. Within a
// block, barriers order accesses; across blocks, only global memory is
// shared, ordered by what atomics and fences released and acquired (vector
// clocks over blocks, with C++'s rules: a relaxed atomic orders nothing
// unless a release fence precedes its write or an acquire fence follows
// its read). Races are deduplicated per (kind, memory, site pair) and reported
// in the order they were found.
//
// It knows nothing of fibers: the scheduler tells it which thread accesses
// what (AccessingThread) and when a block passes a barrier.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_RACEDETECTOR_H
#define EXT_RUNTIME_CPU_RACEDETECTOR_H

#include "Emulator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ext::emu {

/// (block, clock) pairs sorted by block.
using VectorClock = std::vector<std::pair<uint32_t, uint32_t>>;

/// One recorded access to a byte.
struct Access {
  int32_t site = -1;  // -1: none
  uint32_t gtid = 0;  // grid-linear thread id
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

/// What the detector keeps per resident block: barriers passed, the
/// workgroup memory's shadow, the block's release clock and what it acquired
/// from other blocks.
struct BlockRaceState {
  uint32_t epoch = 0;
  std::unique_ptr<Shadow[]> sharedShadow;
  uint32_t clock = 1;
  VectorClock vc;
  /// What the block's last release fence released (what its later relaxed
  /// atomic writes publish), and what its relaxed atomic reads saw (what
  /// its next acquire fence acquires).
  VectorClock fenceReleased, pendingAcquire;
};

/// The thread making an access, as the detector sees it.
struct AccessingThread {
  uint32_t gtid;
  int64_t block; // linear block id
  BlockRaceState &state;
  /// The block's workgroup memory.
  char *shared;
  /// The top of the thread's stack and its usable size (private memory is
  /// never shadowed); stackTop may be null.
  char *stackTop;
  size_t stackBytes;
};

class RaceDetector {
public:
  RaceDetector(const LaunchParams &params, int64_t sharedBytes);

  /// Shadow for a block's workgroup memory (call when it becomes resident).
  void initBlock(BlockRaceState &state) const;
  /// The block's threads all passed a barrier.
  static void barrierReleased(BlockRaceState &state) { ++state.epoch; }
  /// The threads of these blocks (linear id, state) all passed a barrier
  /// that each released and acquired (a barrier.cluster phase): each
  /// block's accesses before it, to its shared memory and to global memory,
  /// are ordered before each block's after it.
  static void clusterBarrierReleased(
      const std::vector<std::pair<int64_t, BlockRaceState *>> &blocks);

  /// Checks and records an access (`kind` as __ext_emu_access has it).
  void recordAccess(const AccessingThread &t, int64_t addr, int64_t bytes,
                    int32_t kind, int32_t site);
  /// A fence (`kind` carries its ordering) by `t`'s block.
  void recordFence(const AccessingThread &t, int32_t kind);
  /// Names the workgroup bytes [addr, addr + bytes) of the block whose
  /// workgroup memory starts at `shared`, for reports.
  void nameShared(char *shared, const char *name, int64_t addr, int64_t bytes);

  bool empty() const { return races.empty(); }
  /// "racecheck: N data races (...)" and a line per race; empty if none.
  std::string summary() const;

private:
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

  const LaunchParams &p;
  int64_t blockThreads, sharedBytes;
  /// Per site, the first site of the same location: sites are per access
  /// op, races are reported per location.
  std::vector<int32_t> location;
  /// Global memory's shadow, the vector clock released at each atomic's
  /// address, and the races found.
  std::unordered_map<uint64_t, Shadow> globalShadow;
  std::unordered_map<uint64_t, VectorClock> syncObjects;
  std::map<std::tuple<int, bool, int32_t, int32_t>, RaceReport> races;
  /// Views of workgroup memory the kernel named: (offset, bytes, name).
  std::set<std::tuple<int64_t, int64_t, std::string>> sharedViews;
  uint64_t raceCount = 0, accessSerial = 0;

  const std::string &site(int32_t index) const;
  bool ordered(const Access &a, const AccessingThread &t, bool shared) const;
  void report(RaceKind kind, bool shared, int64_t where, const Access &first,
              const AccessingThread &t, int32_t site);
  void check(Shadow &sh, const AccessingThread &t, int32_t op, bool atomic,
             int32_t site, bool shared, int64_t where, bool unrecorded);
  std::string describeThread(uint32_t gtid) const;
  std::string describeByte(bool shared, int64_t where) const;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_RACEDETECTOR_H
