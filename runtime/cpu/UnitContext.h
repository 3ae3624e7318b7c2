//===- UnitContext.h - what an emulator unit asks of its launch -*- C++ -*-===//
//
// The units that model Hopper's asynchronous hardware (Tma.h, TmaStore.h,
// WarpgroupMma.h, AsyncCopy.h) and the barriers and warp collectives
// (Barriers.h) work on the launch's state (LaunchState.h) and need a few
// things of the scheduler that runs them: the launch's shape, its reports'
// wording, failing the launch, suspending a thread and waking it, and letting
// other threads run while one spin-waits. A UnitContext is that and no more.
// The scheduler installs its services as callbacks, so the units depend on
// this header and the scheduler on the units, not both ways.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_UNITCONTEXT_H
#define EXT_RUNTIME_CPU_UNITCONTEXT_H

#include "LaunchState.h"

#include <functional>
#include <string>
#include <vector>

namespace ext::emu {

/// The threads of a warpgroup (four warps of 32).
constexpr int32_t kWarpgroupThreads = 128;

/// `v` in hexadecimal ("0x1f"), as addresses are named in reports.
std::string formatHex(int64_t v);

/// Whether an access of `bytes` at `offset` breaks the natural alignment a
/// GPU requires of a 2-, 4-, 8- or 16-byte load, store or copy.
inline bool misaligned(int64_t offset, int64_t bytes) {
  return bytes > 1 && bytes <= 16 && (bytes & (bytes - 1)) == 0 &&
         offset % bytes != 0;
}

class UnitContext {
public:
  /// The launch's parameters and options, and its shape.
  const LaunchParams *params = nullptr;
  const Config *config = nullptr;
  int64_t blockThreads = 0, clusterBlocks = 1;
  /// The bytes of a block's workgroup memory (static and dynamic).
  int64_t sharedBytes = 0;
  /// The order threads start and are released from barriers in.
  const std::vector<int64_t> *threadOrder = nullptr;
  /// Null unless Config::racecheck.
  RaceDetector *races = nullptr;

  /// The source location of site `index`.
  const std::string &location(int32_t index) const;
  /// "thread (x, y, z) of block (x, y, z)"; a block's rank in its cluster is
  /// named where the launch has clusters.
  std::string describe(const Thread &t) const;
  std::string describe(const Block &b) const;
  /// Whether all of `b`'s threads have exited.
  bool allExited(const Block &b) const { return b.exited == blockThreads; }
  /// A warpgroup's key, unique in its cluster (rank * warpgroups per block +
  /// the warpgroup's index in its block): what an mbarrier passes on of
  /// retired MMAs names the block they ran in.
  int64_t warpgroupKey(const Thread &t) const;
  /// `t`'s key in what barriers pass on of retired bulk-store reads
  /// (negative, unlike warpgroup keys): unique in its cluster.
  int64_t bulkKey(const Thread &t) const {
    return -1 - (t.block->rank * blockThreads + t.linear);
  }

  /// Fails the launch with `message` (at `t`'s cluster); `t` runs on.
  void reportError(Thread &t, std::string message) const {
    onFailure(t, std::move(message));
  }
  /// Fails the launch with `message` and suspends `t`, which never runs
  /// again.
  void failLaunch(Thread &t, std::string message) const {
    reportError(t, std::move(message));
    park(t);
  }
  /// An instruction of `t` used against its contract at `site`.
  [[noreturn]] void refuse(Thread &t, int32_t site, std::string message) const;
  /// Fails the launch and suspends `t`: its `bytes`-byte `what` at `site`
  /// is misaligned, where a GPU faults; `detail` says where it points.
  void failMisaligned(Thread &t, int64_t bytes, const char *what,
                      int32_t site, const std::string &detail) const;
  /// Suspends `t` (on its fiber) until the scheduler resumes it.
  static void park(Thread &t);
  /// Makes `t`, suspended at a barrier or collective, runnable again.
  void wake(Thread &t) const {
    t.state = ThreadState::Ready;
    onReady(t);
  }
  /// A barrier or collective of `b` released: its worker is not livelocked.
  void madeProgress(Block &b) const { onProgress(b); }
  /// Lets other threads run while `t` spin-waits at `site` for what
  /// `t.waitingFor` says (an atomic's yield point).
  void spin(Thread &t, int32_t site) const { onSpin(t, site); }
  /// Shows the race detector an access of `t` (EXT_EMU_* `kind`).
  void recordAccess(Thread &t, int64_t addr, int64_t bytes, int32_t kind,
                    int32_t site) const {
    onAccess(t, addr, bytes, kind, site);
  }

  std::function<void(Thread &, std::string)> onFailure;
  std::function<void(Thread &)> onReady;
  std::function<void(Block &)> onProgress;
  std::function<void(Thread &, int32_t)> onSpin;
  std::function<void(Thread &, int64_t, int64_t, int32_t, int32_t)> onAccess;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_UNITCONTEXT_H
