//===- AsyncCopy.cpp - cp.async copies on the CPU -------------------------===//
//
// A copy is issued at its instruction and lands (its bytes written) at the
// wait_group that covers it, or, with a nonzero seed, at one of its thread's
// yield points before that: seed 0 lands every copy as late as the program
// allows, which shows a missing or weak wait most surely; other seeds also
// try earlier points. What a copy writes is checked against the warpgroup
// MMAs and bulk stores that read those bytes, at the issue and at landing.
//
//===----------------------------------------------------------------------===//

#include "AsyncCopy.h"
#include "BankCounter.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstring>

using namespace ext::emu;

void AsyncCopyUnit::land(Thread &t, const AsyncCopy &copy) {
  if (!t.block->wgmmaReadChunks.empty())
    wgmma.checkOperandWrite(t, reinterpret_cast<int64_t>(copy.dst),
                            copy.dstBytes, copy.site,
                            "lands an asynchronous copy into",
                            /*byThread=*/false);
  if (!t.block->bulkReads.empty())
    bulkStores.checkSourceWrite(t, reinterpret_cast<int64_t>(copy.dst),
                                copy.dstBytes, copy.site,
                                "lands an asynchronous copy into",
                                /*byThread=*/false);
  if (copy.srcBytes > 0) {
    ctx.recordAccess(t, reinterpret_cast<int64_t>(copy.src), copy.srcBytes,
                     EXT_EMU_GLOBAL | EXT_EMU_LOAD, copy.site);
    std::memcpy(copy.dst, copy.src, size_t(copy.srcBytes));
  }
  if (copy.dstBytes > copy.srcBytes)
    std::memset(copy.dst + copy.srcBytes, 0,
                size_t(copy.dstBytes - copy.srcBytes));
  ctx.recordAccess(t, reinterpret_cast<int64_t>(copy.dst), copy.dstBytes,
                   EXT_EMU_WORKGROUP | EXT_EMU_STORE, copy.site);
  // cp.async writes through the generic proxy: a bulk store reading these
  // bytes needs the issuing thread's fence.proxy.async after it landed.
  if (t.block->proxyTracking)
    bulkStores.recordGenericWrite(t, reinterpret_cast<int64_t>(copy.dst),
                                  copy.dstBytes, copy.site);
}

void AsyncCopyUnit::maybeLandEarly(Thread &t) {
  if (!t.bulkOpen.empty() || !t.bulkGroups.empty())
    bulkStores.landEarly(t);
  // Empty groups (a commit with no copies) have nothing to land.
  while (!t.copyGroups.empty() && t.copyGroups.front().empty())
    t.copyGroups.pop_front();
  if (ctx.config->seed == 0 ||
      (t.copyGroups.empty() && t.openCopies.empty()) ||
      t.block->rng() % 4 != 0)
    return;
  if (!t.copyGroups.empty()) {
    std::vector<AsyncCopy> &oldest = t.copyGroups.front();
    land(t, oldest.front());
    oldest.erase(oldest.begin());
    if (oldest.empty())
      t.copyGroups.pop_front();
    return;
  }
  land(t, t.openCopies.front());
  t.openCopies.erase(t.openCopies.begin());
}

void AsyncCopyUnit::issueCopy(Thread &t, int64_t dst, int64_t src,
                              int64_t dstBytes, int64_t srcBytes,
                              int32_t site) {
  if (srcBytes < 0 || srcBytes > dstBytes) {
    ctx.failLaunch(t, ctx.describe(t) + ": the asynchronous copy at " +
                          ctx.location(site) + " reads " +
                          std::to_string(srcBytes) + " bytes into " +
                          std::to_string(dstBytes));
    return;
  }
  // cp.async needs both addresses aligned to its size.
  int64_t dstOffset = dst - reinterpret_cast<int64_t>(t.block->shared);
  if (misaligned(dstOffset, dstBytes) ||
      (srcBytes > 0 && misaligned(src, dstBytes))) {
    ctx.failMisaligned(t, dstBytes, "asynchronous copy", site,
                       "workgroup byte " + std::to_string(dstOffset) +
                           ", global address " + std::to_string(src));
    return;
  }
  // The copy may land as soon as it is issued: into bytes an MMA in flight
  // reads, that is a write under the MMA whenever it would land.
  if (t.block->hasWgmmaReads())
    wgmma.checkOperandWrite(t, dst, dstBytes, site,
                            "issues an asynchronous copy into");
  if (t.block->hasBulkReads())
    bulkStores.checkSourceWrite(t, dst, dstBytes, site,
                                "issues an asynchronous copy into");
  // The copy's shared-memory write is one lane of a warp-wide request, as
  // a store's is (cp.async writes through the same banks).
  if (t.block->banks && dstBytes > 0)
    t.block->banks->record(t.block->linear, t.linear, site, dstOffset,
                           dstBytes);
  t.openCopies.push_back({reinterpret_cast<char *>(dst),
                          reinterpret_cast<const char *>(src), dstBytes,
                          srcBytes, site});
  maybeLandEarly(t);
}

void AsyncCopyUnit::commitCopies(Thread &t) {
  t.copyGroups.push_back(std::move(t.openCopies));
  t.openCopies.clear();
}

void AsyncCopyUnit::waitCopies(Thread &t, int32_t pending) {
  while (t.copyGroups.size() > size_t(std::max(pending, 0))) {
    for (const AsyncCopy &copy : t.copyGroups.front())
      land(t, copy);
    t.copyGroups.pop_front();
  }
}
