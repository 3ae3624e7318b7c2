//===- UnitEntryPoints.cpp - the C entry points of the Hopper units -------===//
//
// What a kernel calls for mbarriers and TMA (Tma.h), bulk tensor stores
// (TmaStore.h) and warpgroup MMAs (WarpgroupMma.h): each finds the calling
// thread and hands it to its launch's unit.
//
//===----------------------------------------------------------------------===//

#include "FiberScheduler.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

using namespace ext::emu;

namespace {

/// The calling thread; outside a launch, `entry` is refused.
Thread &caller(const char *entry) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch(entry);
  return *t;
}

const TensorMap *tensorMap(Thread &t, int64_t map, int32_t rank, int32_t site,
                           const char *what) {
  return tensorMapOfRank(t.launch->units(), t, map, rank, site, what);
}

} // namespace

extern "C" {

void __ext_emu_mbarrier_init(int64_t addr, int32_t count, int32_t site) {
  Thread &t = caller("__ext_emu_mbarrier_init");
  t.launch->tma.mbarrierInit(t, addr, count, site);
}

void __ext_emu_mbarrier_arrive(int64_t addr, int64_t txBytes, int32_t site) {
  Thread &t = caller("__ext_emu_mbarrier_arrive");
  t.launch->tma.mbarrierArrive(t, addr, txBytes, site);
}

void __ext_emu_mbarrier_inval(int64_t addr, int32_t site) {
  Thread &t = caller("__ext_emu_mbarrier_inval");
  t.launch->tma.mbarrierInval(t, addr, site);
}

int32_t __ext_emu_mbarrier_try_wait_parity(int64_t addr, int32_t parity,
                                           int32_t site) {
  Thread &t = caller("__ext_emu_mbarrier_try_wait_parity");
  return t.launch->tma.mbarrierTryWait(t, addr, parity, site) ? 1 : 0;
}

int64_t __ext_emu_mbarrier_arrive_count(int64_t addr, int32_t count,
                                        int32_t relaxed, int32_t site) {
  Thread &t = caller("__ext_emu_mbarrier_arrive_count");
  return t.launch->tma.mbarrierArriveCount(t, addr, count, relaxed != 0, site);
}

int64_t __ext_emu_mapa(int64_t addr, int32_t rank, int32_t site) {
  Thread &t = caller("__ext_emu_mapa");
  return t.launch->tma.mapa(t, addr, rank, site);
}

void __ext_emu_tma_load(int64_t map, int64_t dst, int64_t barrier,
                        const int64_t *coords, int32_t rank, int32_t site) {
  Thread &t = caller("__ext_emu_tma_load");
  const TensorMap *m = tensorMap(t, map, rank, site, "cp.async.bulk.tensor");
  t.launch->tma.issueLoad(t, m, dst, barrier, coords, site);
}

void __ext_emu_tma_load_multicast(int64_t map, int64_t dst, int64_t barrier,
                                  const int64_t *coords, int32_t rank,
                                  int32_t mask, int32_t site) {
  Thread &t = caller("__ext_emu_tma_load_multicast");
  const TensorMap *m = tensorMap(t, map, rank, site, "cp.async.bulk.tensor");
  t.launch->tma.issueMulticast(t, m, dst, barrier, coords, mask, site);
}

void __ext_emu_tma_store(int64_t map, int64_t src, const int64_t *coords,
                         int32_t rank, int32_t site) {
  Thread &t = caller("__ext_emu_tma_store");
  const TensorMap *m =
      tensorMap(t, map, rank, site, "cp.async.bulk.tensor (a store)");
  t.launch->bulkStores.issueStore(t, m, src, coords, site);
}

void __ext_emu_bulk_commit(void) {
  Thread &t = caller("__ext_emu_bulk_commit");
  t.launch->bulkStores.commitGroup(t);
}

void __ext_emu_bulk_wait(int32_t pending, int32_t read, int32_t site) {
  Thread &t = caller("__ext_emu_bulk_wait");
  t.launch->bulkStores.waitGroup(t, pending, read != 0, site);
}

void __ext_emu_fence_proxy_async(int32_t site) {
  Thread &t = caller("__ext_emu_fence_proxy_async");
  t.launch->bulkStores.fenceProxyAsync(t, site);
}

void __ext_emu_track_generic_writes(void) {
  Thread &t = caller("__ext_emu_track_generic_writes");
  t.launch->bulkStores.trackGenericWrites(t);
}

void __ext_emu_wgmma(int32_t site, int64_t descA, int64_t descB, int32_t kind,
                     int32_t n, int32_t flags, int64_t acc) {
  Thread &t = caller("__ext_emu_wgmma");
  t.launch->wgmma.issueMma(t, site, descA, descB, kind, n, flags, acc);
}

// Outside a launch, the fence, commit, wait and check have nothing to do.
void __ext_emu_wgmma_fence(int32_t site) {
  (void)site;
  if (Thread *t = currentThread())
    t->launch->wgmma.fenceMmas(*t);
}

void __ext_emu_wgmma_commit(int32_t site) {
  (void)site;
  if (Thread *t = currentThread())
    t->launch->wgmma.commitMmas(*t);
}

void __ext_emu_wgmma_wait(int32_t site, int32_t pending) {
  if (Thread *t = currentThread())
    t->launch->wgmma.waitMmas(*t, site, pending);
}

void __ext_emu_wgmma_check(int32_t site, int32_t producer) {
  if (Thread *t = currentThread())
    t->launch->wgmma.checkAccumulatorRead(*t, site, producer);
}

void __ext_emu_setmaxnreg(int32_t site, int32_t count, int32_t increase) {
  Thread &t = caller("__ext_emu_setmaxnreg");
  t.launch->wgmma.setMaxRegisters(t, site, count, increase != 0);
}

} // extern "C"
