//===- AsyncCopy.h - cp.async copies on the CPU -----------------*- C++ -*-===//
//
// The unit of asynchronous global-to-shared copies (cp.async,
// nvgpu.device_async_copy): a thread's copies in flight, its commit groups,
// and when they land. Apart from the scheduler, like the other units, so it
// sees the launch only through UnitContext.h. It also owns landing at yield
// points (its copies and, through the bulk-store unit, bulk stores), which
// the scheduler and the barriers ask for.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_ASYNCCOPY_H
#define EXT_RUNTIME_CPU_ASYNCCOPY_H

#include "TmaStore.h"
#include "UnitContext.h"
#include "WarpgroupMma.h"

namespace ext::emu {

class AsyncCopyUnit {
public:
  AsyncCopyUnit(const UnitContext &ctx, WarpgroupMmaUnit &wgmma,
                BulkStoreUnit &bulkStores)
      : ctx(ctx), wgmma(wgmma), bulkStores(bulkStores) {}

  /// Issues a copy of `srcBytes` from `src` then zeros up to `dstBytes` at
  /// `dst` (in `t`'s workgroup memory). It lands when `t`'s wait covers its
  /// group or, with a nonzero seed, at one of `t`'s earlier yield points
  /// the seeded generator picks.
  void issueCopy(Thread &t, int64_t dst, int64_t src, int64_t dstBytes,
                 int64_t srcBytes, int32_t site);
  /// Closes `t`'s open copies into a group.
  void commitCopies(Thread &t);
  /// Lands all but the newest `pending` committed groups of `t`.
  void waitCopies(Thread &t, int32_t pending);
  /// At a yield point of `t`: its bulk stores may land, and with a nonzero
  /// seed its oldest copy in flight, by chance.
  void maybeLandEarly(Thread &t);

private:
  /// Writes one copy into shared memory (a store of its bytes, and a load
  /// of its source, for the race detector).
  void land(Thread &t, const AsyncCopy &copy);

  const UnitContext &ctx;
  WarpgroupMmaUnit &wgmma;
  BulkStoreUnit &bulkStores;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_ASYNCCOPY_H
