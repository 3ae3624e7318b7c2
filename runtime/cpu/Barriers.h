//===- Barriers.h - where emulated threads wait for each other --*- C++ -*-===//
//
// Block barriers (gpu.barrier), named barriers (bar.sync id, count), the
// cluster barrier (barrier.cluster.arrive / wait) and warp collectives (the
// meeting point of shuffles, votes and subgroup reductions). Apart from the
// scheduler because they only park threads and wake them: they see the
// launch through UnitContext.h, and the scheduler calls them, not the other
// way round.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_BARRIERS_H
#define EXT_RUNTIME_CPU_BARRIERS_H

#include "AsyncCopy.h"
#include "UnitContext.h"
#include "WarpgroupMma.h"

namespace ext::emu {

class BarrierUnit {
public:
  BarrierUnit(const UnitContext &ctx, WarpgroupMmaUnit &wgmma,
              AsyncCopyUnit &copies)
      : ctx(ctx), wgmma(wgmma), copies(copies) {}

  /// gpu.barrier: every thread of the block, at the same barrier.
  void blockBarrier(Thread &t, int32_t site);
  /// bar.sync `id`, `count`: `count` threads of the block.
  void namedBarrier(Thread &t, int32_t id, int32_t count, int32_t site);
  /// barrier.cluster.arrive(.relaxed) and barrier.cluster.wait.
  void clusterArrive(Thread &t, bool relaxed, int32_t site);
  void clusterWait(Thread &t, int32_t site);
  /// A warp collective of the lanes below `width`; returns the mask of the
  /// lanes that took part.
  int64_t warpSync(Thread &t, int32_t site, int32_t width);
  /// Releases every pending collective of the warp that all its live
  /// participants have reached (also after one of them exits).
  void releaseWarp(Block &b, int32_t warpIndex);

private:
  void releaseBlockBarrier(Block &b);
  /// Completes the cluster barrier's phase (every thread arrived).
  void releaseClusterBarrier(Cluster &c);
  /// Fails the launch: `t` reached a barrier at `site` with MMAs it has not
  /// committed (`what`: the barrier's name); `t` runs on.
  void checkWgmmaCommitted(Thread &t, const char *what, int32_t site);

  const UnitContext &ctx;
  WarpgroupMmaUnit &wgmma;
  AsyncCopyUnit &copies;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_BARRIERS_H
