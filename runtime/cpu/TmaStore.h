//===- TmaStore.h - bulk tensor stores on the CPU ---------------*- C++ -*-===//
//
// The bulk-store unit: TMA stores from workgroup memory to global memory,
// the bulk async-groups that complete them, and the async-proxy tracking
// (fence.proxy.async) their sources need. TmaStore.cpp says when a store
// reads and writes, and what it checks.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_TMASTORE_H
#define EXT_RUNTIME_CPU_TMASTORE_H

#include "UnitContext.h"

namespace ext::emu {

class BulkStoreUnit {
public:
  explicit BulkStoreUnit(const UnitContext &ctx) : ctx(ctx) {}

  /// cp.async.bulk.tensor from `src` (`t`'s workgroup memory) to the box of
  /// `map` at `coords`.
  void issueStore(Thread &t, const TensorMap *map, int64_t src,
                  const int64_t *coords, int32_t site);
  /// cp.async.bulk.commit_group.
  void commitGroup(Thread &t);
  /// cp.async.bulk.wait_group `pending` (`read`: until the covered groups'
  /// source reads are done).
  void waitGroup(Thread &t, int32_t pending, bool read, int32_t site);
  /// With a nonzero seed, lands `t`'s oldest bulk store not yet written by
  /// chance (its reads stay in flight until a wait covers them).
  void landEarly(Thread &t);
  /// Lands and retires every bulk store of `t` (its exit).
  void completeAll(Thread &t);

  /// fence.proxy.async: `t`'s ordinary shared-memory writes so far are
  /// visible to the async proxy (bulk copies it or others issue after).
  void fenceProxyAsync(Thread &t, int32_t site);
  /// The calling block tracks ordinary writes for fence.proxy.async.
  void trackGenericWrites(Thread &t);
  /// Notes an ordinary write of `t` to workgroup memory (proxy tracking).
  void recordGenericWrite(Thread &t, int64_t addr, int64_t bytes, int32_t site);
  /// An async-proxy write (a TMA load landing) replaced these bytes: no
  /// ordinary write to them needs a fence any more.
  void forgetGenericWrites(Block &b, int64_t addr, int64_t bytes);
  /// Fails the launch on a write of `t` (`byThread`: its own store or copy
  /// issue; else an asynchronous copy landing) into bytes a bulk tensor store
  /// in flight reads, or whose read retired where `t` cannot know it.
  void checkSourceWrite(Thread &t, int64_t addr, int64_t bytes, int32_t site,
                        const char *what, bool byThread = true);

private:
  /// A store's steps, on its issuing thread: the read of its source, the
  /// write of global memory (after the read), and the retirement of its
  /// reads (after the read; the chunks leave Block::bulkReads).
  void readSource(Thread &t, TmaStore &store);
  void writeGlobal(Thread &t, TmaStore &store);
  void retireRead(Thread &t, TmaStore &store);

  const UnitContext &ctx;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_TMASTORE_H
