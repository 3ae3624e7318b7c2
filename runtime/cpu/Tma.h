//===- Tma.h - bulk tensor copies and mbarriers on the CPU ------*- C++ -*-===//
//
// The TMA unit: mbarriers (init, arrive, expect_tx, try_wait.parity, inval),
// bulk tensor loads into workgroup memory (multicast across a cluster
// included) and distributed shared memory's mapa. Tma.cpp says how a copy
// lands.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_TMA_H
#define EXT_RUNTIME_CPU_TMA_H

#include "UnitContext.h"

namespace ext::emu {

class BulkStoreUnit;
class WarpgroupMmaUnit;

class TmaUnit {
public:
  /// A copy landing checks the bytes it writes against the reads of MMAs
  /// and bulk stores in flight.
  TmaUnit(const UnitContext &ctx, WarpgroupMmaUnit &wgmma,
          BulkStoreUnit &bulkStores)
      : ctx(ctx), wgmma(wgmma), bulkStores(bulkStores) {}

  void mbarrierInit(Thread &t, int64_t addr, int64_t count, int32_t site);
  /// An arrival that also expects `txBytes` transaction bytes.
  void mbarrierArrive(Thread &t, int64_t addr, int64_t txBytes, int32_t site);
  void mbarrierInval(Thread &t, int64_t addr, int32_t site);
  /// Whether the phase of parity `parity` has completed; lands the copies
  /// the barrier tracks first.
  bool mbarrierTryWait(Thread &t, int64_t addr, int32_t parity, int32_t site);
  /// `count` arrivals on an mbarrier that may be a cluster peer's; returns
  /// the phase arrived in.
  int64_t mbarrierArriveCount(Thread &t, int64_t addr, int64_t count,
                              bool relaxed, int32_t site);
  /// `addr`'s workgroup offset in the block of rank `rank` of `t`'s cluster.
  int64_t mapa(Thread &t, int64_t addr, int32_t rank, int32_t site);
  /// A bulk tensor load of `map`'s box at `coords` to `dst`, completing on
  /// the mbarrier at `barrier`.
  void issueLoad(Thread &t, const TensorMap *map, int64_t dst, int64_t barrier,
                 const int64_t *coords, int32_t site);
  /// The same into each block of `t`'s cluster whose rank bit `mask` sets.
  void issueMulticast(Thread &t, const TensorMap *map, int64_t dst,
                      int64_t barrier, const int64_t *coords, int32_t mask,
                      int32_t site);

private:
  /// Completes `b`'s phase when its arrivals and transactions are in.
  static void maybeCompletePhase(MBarrier &b);
  /// The block (of `t`'s cluster) whose workgroup memory holds `addr`, and
  /// the byte's offset there; null when none does.
  Block *sharedOwner(const Thread &t, int64_t addr, int64_t &offset) const;
  /// Fails the launch (and suspends `t`) when `b`, a peer `t` operates on
  /// remotely, has exited; whether it has.
  bool peerExited(Thread &t, const Block &b, const std::string &op,
                  int32_t site);
  /// The barrier at workgroup address `addr` of `t`'s block; fails the
  /// launch when it is outside workgroup memory or not initialized. With
  /// `owner`, `addr` may also be a shared::cluster address in a peer block
  /// of the cluster (not exited), set there.
  MBarrier *mbarrierAt(Thread &t, int64_t addr, const char *op, int32_t site,
                       Block **owner = nullptr);
  /// Lands `copy` into shared memory; returns the bytes it completes.
  int64_t landCopy(Thread &t, const TmaCopy &copy);

  const UnitContext &ctx;
  WarpgroupMmaUnit &wgmma;
  BulkStoreUnit &bulkStores;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_TMA_H
