//===- Tma.cpp - bulk tensor copies and mbarriers on the CPU --------------===//
//
// Hopper's TMA and transaction barriers (PTX ISA 9.7.9.25 and 9.7.13.15).
// A copy is attached to its barrier when issued and lands when a thread
// first waits on that barrier: a kernel that reads the destination before
// waiting sees the old bytes (as it may on a GPU), and a barrier whose
// expected bytes never all arrive, or a wait on a phase that never comes,
// spins until the launch is reported as hung, saying what it waits for.
// The destination is swizzled as the map says, by the same function on the
// shared-window address that wgmma's operand reads use.
//
//===----------------------------------------------------------------------===//

#include "Tma.h"
#include "TmaStore.h"
#include "WarpgroupMma.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <cstring>
#include <limits>
#include <string>

using namespace ext::emu;

void TmaUnit::maybeCompletePhase(MBarrier &b) {
  if (b.pending == 0 && b.tx == 0) {
    ++b.phase;
    b.pending = b.expected;
    b.released = std::move(b.releasing);
    b.releasing.clear();
  }
}

Block *TmaUnit::sharedOwner(const Thread &t, int64_t addr,
                            int64_t &offset) const {
  auto holds = [&](const Block *b) {
    offset = addr - reinterpret_cast<int64_t>(b->shared);
    return offset >= 0 && offset < ctx.sharedBytes;
  };
  if (holds(t.block))
    return t.block;
  for (Block *b : t.block->cluster->blocks)
    if (b != t.block && holds(b))
      return b;
  offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  return nullptr;
}

bool TmaUnit::peerExited(Thread &t, const Block &b, const std::string &op,
                         int32_t site) {
  if (!ctx.allExited(b))
    return false;
  ctx.failLaunch(
      t, ctx.describe(t) + ": " + op + " at " + ctx.location(site) +
             " on the shared memory of " + ctx.describe(b) +
             ", whose threads have all exited (on a GPU its shared memory "
             "may be gone): a block must not exit while its cluster's "
             "peers may still use its shared memory; end the kernel with a "
             "cluster barrier (nvvm.cluster.arrive, nvvm.cluster.wait)");
  return true;
}

MBarrier *TmaUnit::mbarrierAt(Thread &t, int64_t addr, const char *op,
                              int32_t site, Block **owner) {
  int64_t offset;
  Block *b = sharedOwner(t, addr, offset);
  if (!b || offset + 8 > ctx.sharedBytes || offset % 8) {
    ctx.failLaunch(
        t,
        ctx.describe(t) + ": " + op + " at " + ctx.location(site) +
            " on address " + formatHex(addr) +
            ", not an 8-byte aligned word of the block's workgroup "
            "memory" +
            (ctx.clusterBlocks > 1 ? " (or of a block of its cluster)" : ""));
    return nullptr;
  }
  std::string of = b == t.block ? "" : " of " + ctx.describe(*b);
  if (b != t.block) {
    if (!owner) {
      ctx.failLaunch(
          t, ctx.describe(t) + ": " + op + " at " + ctx.location(site) +
                 " on the mbarrier at workgroup byte " +
                 std::to_string(offset) + of +
                 ", another block of its cluster: it works on the executing "
                 "block's own mbarriers (shared::cta) only");
      return nullptr;
    }
    if (peerExited(t, *b, op, site))
      return nullptr;
  }
  auto it = b->mbarriers.find(offset);
  if (it == b->mbarriers.end()) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": " + op + " at " + ctx.location(site) +
               " on the mbarrier at workgroup byte " + std::to_string(offset) +
               of + ", which was never initialized (mbarrier.init)" +
               (b == t.block
                    ? ""
                    : "; a peer's mbarriers take remote operations once a "
                      "cluster barrier follows their init "
                      "(nvvm.fence.mbarrier.init, nvvm.cluster.arrive, "
                      "nvvm.cluster.wait)"));
    return nullptr;
  }
  if (owner)
    *owner = b;
  return &it->second;
}

void TmaUnit::mbarrierInit(Thread &t, int64_t addr, int64_t count,
                           int32_t site) {
  int64_t offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  int64_t window = sharedWindowBytes(*ctx.params);
  if (offset < 0 || offset + 8 > window || offset % 8 || count < 1 ||
      count > (int64_t(1) << 20) - 1) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": mbarrier.init at " + ctx.location(site) +
               " of " + std::to_string(count) + " arrivals at address " +
               formatHex(addr) +
               " (needs an 8-byte aligned word of workgroup memory and 1 to "
               "2^20 - 1 arrivals)");
    return;
  }
  MBarrier &b = t.block->mbarriers[offset];
  // Kernels often have every thread initialize the barrier, with no block
  // barrier before the first arrival: on a GPU the inits of one count run
  // together, before anyone arrives. Threads here run apart, so another
  // thread's init of the same count since the last block barrier is taken
  // as that same init, not as a reset that would lose the arrivals and
  // copies made since.
  if (b.initEpoch == t.block->barriers && b.initThread != t.linear &&
      b.expected == count)
    return;
  b = MBarrier();
  b.expected = b.pending = count;
  b.initThread = t.linear;
  b.initEpoch = t.block->barriers;
}

void TmaUnit::mbarrierInval(Thread &t, int64_t addr, int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.inval", site);
  if (!b)
    return;
  if (b->pending != b->expected || b->tx != 0 || !b->copies.empty()) {
    ctx.failLaunch(
        t,
        ctx.describe(t) + ": mbarrier.inval at " + ctx.location(site) +
            " of the mbarrier at workgroup byte " +
            std::to_string(addr - reinterpret_cast<int64_t>(t.block->shared)) +
            " while its phase is incomplete (" +
            std::to_string(b->expected - b->pending) + " of " +
            std::to_string(b->expected) + " arrivals, " +
            std::to_string(b->tx) + " transaction bytes outstanding, " +
            std::to_string(b->copies.size()) +
            " bulk copies not landed): undefined on a GPU");
    return;
  }
  t.block->mbarriers.erase(addr - reinterpret_cast<int64_t>(t.block->shared));
}

int64_t TmaUnit::mbarrierArriveCount(Thread &t, int64_t addr, int64_t count,
                                     bool relaxed, int32_t site) {
  Block *owner = nullptr;
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.arrive", site, &owner);
  if (!b)
    return 0;
  int64_t phase = b->phase;
  if (count < 1 || count > (int64_t(1) << 20) - 1) {
    ctx.failLaunch(t, ctx.describe(t) + ": mbarrier.arrive at " +
                          ctx.location(site) + " with a count of " +
                          std::to_string(count) + " (1 to 2^20 - 1)");
    return 0;
  }
  // A release arrival passes on what the thread knows of retired MMAs,
  // whichever block's barrier it arrives on (the keys name the block).
  if (!relaxed)
    wgmma.publishRetirement(t, *b);
  b->pending -= count;
  if (b->pending < 0) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": mbarrier.arrive at " + ctx.location(site) +
               " arrives more times than the barrier's " +
               std::to_string(b->expected) + " per phase" +
               (owner == t.block
                    ? ""
                    : " (the barrier of " + ctx.describe(*owner) + ")"));
    return 0;
  }
  maybeCompletePhase(*b);
  return phase;
}

int64_t TmaUnit::mapa(Thread &t, int64_t addr, int32_t rank, int32_t site) {
  int64_t offset;
  Block *from = sharedOwner(t, addr, offset);
  if (!from) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": mapa at " + ctx.location(site) +
               " of address " + formatHex(addr) +
               ", which is not in the workgroup memory of its block (nor of "
               "a block of its cluster)");
    return 0;
  }
  if (rank < 0 || rank >= ctx.clusterBlocks) {
    ctx.failLaunch(t,
                   ctx.describe(t) + ": mapa at " + ctx.location(site) +
                       " to the block of "
                       "rank " +
                       std::to_string(rank) + ", but its cluster " +
                       formatDim(ctx.params->cluster) + " has " +
                       std::to_string(ctx.clusterBlocks) + " block" +
                       (ctx.clusterBlocks == 1
                            ? " (rank 0)"
                            : "s (ranks 0 to " +
                                  std::to_string(ctx.clusterBlocks - 1) + ")"));
    return 0;
  }
  return reinterpret_cast<int64_t>(
      t.block->cluster->blocks[size_t(rank)]->shared + offset);
}

void TmaUnit::mbarrierArrive(Thread &t, int64_t addr, int64_t txBytes,
                             int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.arrive", site);
  if (!b)
    return;
  b->tx += txBytes;
  wgmma.publishRetirement(t, *b);
  if (--b->pending < 0) {
    ctx.failLaunch(t, ctx.describe(t) + ": mbarrier.arrive at " +
                          ctx.location(site) +
                          " arrives more times than the barrier's " +
                          std::to_string(b->expected) + " per phase");
    return;
  }
  maybeCompletePhase(*b);
}

int64_t TmaUnit::landCopy(Thread &t, const TmaCopy &copy) {
  const TensorMap &m = *copy.map;
  int64_t elements = 1;
  for (int32_t d = 0; d < m.rank; ++d)
    elements *= m.box[d];
  char *window = t.block->shared;
  int64_t base = copy.dst - window;
  int64_t index[5] = {0, 0, 0, 0, 0};
  for (int64_t e = 0; e < elements; ++e) {
    // Element `index` of the box: its global coordinates, and its place in
    // the box (row-major, innermost fastest), then swizzled.
    bool inside = true;
    int64_t source = 0;
    for (int32_t d = 0; d < m.rank; ++d) {
      int64_t c = copy.coords[d] + index[d];
      inside &= c >= 0 && c < m.sizes[d];
      source += c * m.strides[d];
    }
    char *to =
        window + swizzledSharedAddress(base + e * m.elementBytes, m.swizzle);
    if (!t.block->wgmmaReadChunks.empty())
      wgmma.checkOperandWrite(t, reinterpret_cast<int64_t>(to), m.elementBytes,
                              copy.site, "lands a bulk tensor copy into",
                              /*byThread=*/false);
    if (!t.block->bulkReads.empty())
      bulkStores.checkSourceWrite(t, reinterpret_cast<int64_t>(to),
                                  m.elementBytes, copy.site,
                                  "lands a bulk tensor copy into",
                                  /*byThread=*/false);
    if (t.block->proxyTracking)
      bulkStores.forgetGenericWrites(*t.block, reinterpret_cast<int64_t>(to),
                                     m.elementBytes);
    if (inside) {
      std::memcpy(to, m.base + source, size_t(m.elementBytes));
    } else if (m.oobNan && m.elementBytes == 4) {
      float nan = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(to, &nan, 4);
    } else if (m.oobNan && m.elementBytes == 2) {
      uint16_t nan = 0x7e00;
      std::memcpy(to, &nan, 2);
    } else {
      std::memset(to, 0, size_t(m.elementBytes));
    }
    for (int32_t d = 0; d < m.rank && ++index[d] == m.box[d]; ++d)
      index[d] = 0;
  }
  return m.boxBytes();
}

bool TmaUnit::mbarrierTryWait(Thread &t, int64_t addr, int32_t parity,
                              int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.try_wait.parity", site);
  if (!b)
    return false;
  // The copies it tracks land now (in issue order), completing their bytes.
  std::vector<TmaCopy> copies = std::move(b->copies);
  b->copies.clear();
  for (const TmaCopy &copy : copies) {
    b->tx -= landCopy(t, copy);
    maybeCompletePhase(*b);
  }
  // The phase of parity `parity` has completed once the current one's
  // parity differs (PTX: waiting on the previous phase's parity returns at
  // once).
  if ((b->phase & 1) != (parity & 1)) {
    t.waitingFor.clear();
    WarpgroupMmaUnit::learnRetirement(t, *b);
    // What the arrivals did before is ordered before what the waiter does
    // next (a fence.proxy.async before an arrival, say).
    ++t.block->syncs;
    return true;
  }
  int64_t offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  t.waitingFor = "the mbarrier at workgroup byte " + std::to_string(offset) +
                 " to complete its phase of parity " +
                 std::to_string(parity & 1) + " (it is in phase " +
                 std::to_string(b->phase) + ", " + std::to_string(b->pending) +
                 " of " + std::to_string(b->expected) + " arrivals and " +
                 std::to_string(b->tx) +
                 " transaction bytes still to come): a wait on the wrong "
                 "parity, or an expect_tx that does not match the copies?";
  ctx.spin(t, site);
  return false;
}

void TmaUnit::issueLoad(Thread &t, const TensorMap *map, int64_t dst,
                        int64_t barrier, const int64_t *coords, int32_t site) {
  if (!checkTensorCopyIssue(ctx, t, map, dst, site, /*store=*/false))
    return;
  // The copy may land as soon as it is issued: into bytes an MMA in flight
  // reads, that is a write under the MMA whenever it would land.
  if (t.block->hasWgmmaReads())
    wgmma.checkOperandWrite(t, dst, map->boxBytes(), site,
                            "issues a bulk tensor copy into");
  if (t.block->hasBulkReads())
    bulkStores.checkSourceWrite(t, dst, map->boxBytes(), site,
                                "issues a bulk tensor copy into");
  MBarrier *b = mbarrierAt(t, barrier, "cp.async.bulk.tensor", site);
  if (!b)
    return;
  TmaCopy copy{map, reinterpret_cast<char *>(dst), {0, 0, 0, 0, 0}, site};
  for (int32_t d = 0; d < map->rank; ++d)
    copy.coords[d] = coords[d];
  b->copies.push_back(copy);
}

void TmaUnit::issueMulticast(Thread &t, const TensorMap *map, int64_t dst,
                             int64_t barrier, const int64_t *coords,
                             int32_t mask, int32_t site) {
  if (!checkTensorCopyIssue(ctx, t, map, dst, site, /*store=*/false))
    return;
  uint32_t bits = uint32_t(mask) & 0xffff;
  if (bits == 0 || (bits >> ctx.clusterBlocks) != 0) {
    int32_t beyond = bits ? 31 - __builtin_clz(bits) : 0;
    std::string blocks = std::to_string(ctx.clusterBlocks) + " block" +
                         (ctx.clusterBlocks == 1 ? "" : "s") + " (ranks 0 to " +
                         std::to_string(ctx.clusterBlocks - 1) + ")";
    ctx.failLaunch(
        t, ctx.describe(t) + ": cp.async.bulk.tensor at " + ctx.location(site) +
               " with multicast mask " + formatHex(bits) +
               (bits == 0 ? std::string(", which names no block")
                          : ", whose bit " + std::to_string(beyond) +
                                " is beyond its cluster's " + blocks));
    return;
  }
  char *own = t.block->shared;
  int64_t dstOffset = dst - reinterpret_cast<int64_t>(own);
  int64_t barrierOffset = barrier - reinterpret_cast<int64_t>(own);
  // The box lands at the same offset in each block the mask names, and
  // completes its bytes on the mbarrier at the same offset there. Each
  // destination is checked now, with what the issuing thread knows of the
  // MMAs that read it.
  for (Block *d : t.block->cluster->blocks) {
    if (!(bits & (1u << d->rank)))
      continue;
    if (d != t.block &&
        peerExited(t, *d, "cp.async.bulk.tensor (multicast)", site))
      return;
    int64_t to = reinterpret_cast<int64_t>(d->shared) + dstOffset;
    if (d->hasWgmmaReads())
      wgmma.checkOperandWrite(t, to, map->boxBytes(), site,
                              "issues a bulk tensor copy (multicast) into",
                              /*byThread=*/true, d);
    Block *owner = nullptr;
    MBarrier *b =
        mbarrierAt(t, reinterpret_cast<int64_t>(d->shared) + barrierOffset,
                   "cp.async.bulk.tensor (multicast)", site, &owner);
    if (!b)
      return;
    TmaCopy copy{map, reinterpret_cast<char *>(to), {0, 0, 0, 0, 0}, site};
    for (int32_t k = 0; k < map->rank; ++k)
      copy.coords[k] = coords[k];
    b->copies.push_back(copy);
  }
}
