//===- WarpgroupMma.h - sm_90 warpgroup MMA on the CPU ----------*- C++ -*-===//
//
// The warpgroup-MMA unit: wgmma.mma_async and its fence, commit and wait,
// the checks of what their asynchrony could get wrong, setmaxnreg, and what
// barriers pass on of retired MMAs (and of retired bulk-store reads, under
// the issuing thread's key). WarpgroupMma.cpp says how operands are read.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_WARPGROUPMMA_H
#define EXT_RUNTIME_CPU_WARPGROUPMMA_H

#include "UnitContext.h"

namespace ext::emu {

class WarpgroupMmaUnit {
public:
  explicit WarpgroupMmaUnit(const UnitContext &ctx) : ctx(ctx) {}

  /// wgmma.mma_async of `kind` (EXT_EMU_WGMMA_*) with N = `n`: A and B
  /// through their descriptors, `t`'s accumulators at `acc`.
  void issueMma(Thread &t, int32_t site, int64_t descA, int64_t descB,
                int32_t kind, int32_t n, int32_t flags, int64_t acc);
  /// wgmma.fence, wgmma.commit_group and wgmma.wait_group `pending`.
  void fenceMmas(Thread &t);
  void commitMmas(Thread &t);
  void waitMmas(Thread &t, int32_t site, int32_t pending);
  /// A read of an accumulator of the MMA at site `producer` (-1: any).
  void checkAccumulatorRead(Thread &t, int32_t site, int32_t producer);
  /// setmaxnreg.inc or .dec to `count` registers.
  void setMaxRegisters(Thread &t, int32_t site, int32_t count, bool increase);

  /// Fails the launch on a write by `t` (`byThread`: its own store or
  /// issue; else a copy landing, whose issue was checked) into bytes MMAs
  /// read: an error while they are in flight, or, for `t`'s own writes,
  /// while their retirement is not known to `t`. `target`: the block
  /// written (a multicast's peer), `t`'s own by default.
  void checkOperandWrite(Thread &t, int64_t addr, int64_t bytes, int32_t site,
                         const char *what, bool byThread = true,
                         Block *target = nullptr);
  /// An arrival of `t` on `b` passes on what `t` knows of retired MMAs; a
  /// completed wait of `t` on `b` learns what the phase's arrivals knew.
  void publishRetirement(const Thread &t, MBarrier &b) const;
  static void learnRetirement(Thread &t, const MBarrier &b);

private:
  /// Until every thread of `t`'s warpgroup has issued its MMA number
  /// `sequence` (the group completes for the whole warpgroup).
  void waitFor(Thread &t, int64_t sequence, int32_t site);

  const UnitContext &ctx;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_WARPGROUPMMA_H
