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

#include "FiberScheduler.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace ext::emu;

namespace {

std::string hex(int64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", (unsigned long long)v);
  return text;
}

} // namespace

void Grid::maybeCompletePhase(MBarrier &b) {
  if (b.pending == 0 && b.tx == 0) {
    ++b.phase;
    b.pending = b.expected;
    b.released = std::move(b.releasing);
    b.releasing.clear();
  }
}

Block *Grid::sharedOwner(const Thread &t, int64_t addr,
                         int64_t &offset) const {
  auto holds = [&](const Block *b) {
    offset = addr - reinterpret_cast<int64_t>(b->shared);
    return offset >= 0 && offset < sharedBytes;
  };
  if (holds(t.block))
    return t.block;
  for (Block *b : t.block->cluster->blocks)
    if (b != t.block && holds(b))
      return b;
  offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  return nullptr;
}

bool Grid::peerExited(Thread &t, const Block &b, const std::string &op,
                      int32_t site) {
  if (!b.finished())
    return false;
  fail(t, where(t) + ": " + op + " at " + this->site(site) +
              " on the shared memory of " + describeBlock(b) +
              ", whose threads have all exited (on a GPU its shared memory "
              "may be gone): a block must not exit while its cluster's "
              "peers may still use its shared memory; end the kernel with a "
              "cluster barrier (nvvm.cluster.arrive, nvvm.cluster.wait)");
  suspend(t);
  return true;
}

MBarrier *Grid::mbarrierAt(Thread &t, int64_t addr, const char *op,
                           int32_t site, Block **owner) {
  int64_t offset;
  Block *b = sharedOwner(t, addr, offset);
  if (!b || offset + 8 > sharedBytes || offset % 8) {
    fail(t, where(t) + ": " + op + " at " + this->site(site) +
                " on address " + hex(addr) +
                ", not an 8-byte aligned word of the block's workgroup "
                "memory" +
                (clusterBlocks > 1 ? " (or of a block of its cluster)" : ""));
    suspend(t);
    return nullptr;
  }
  std::string of = b == t.block ? "" : " of " + describeBlock(*b);
  if (b != t.block) {
    if (!owner) {
      fail(t, where(t) + ": " + op + " at " + this->site(site) +
                  " on the mbarrier at workgroup byte " +
                  std::to_string(offset) + of +
                  ", another block of its cluster: it works on the executing "
                  "block's own mbarriers (shared::cta) only");
      suspend(t);
      return nullptr;
    }
    if (peerExited(t, *b, op, site))
      return nullptr;
  }
  auto it = b->mbarriers.find(offset);
  if (it == b->mbarriers.end()) {
    fail(t, where(t) + ": " + op + " at " + this->site(site) +
                " on the mbarrier at workgroup byte " + std::to_string(offset) +
                of + ", which was never initialized (mbarrier.init)" +
                (b == t.block
                     ? ""
                     : "; a peer's mbarriers take remote operations once a "
                       "cluster barrier follows their init "
                       "(nvvm.fence.mbarrier.init, nvvm.cluster.arrive, "
                       "nvvm.cluster.wait)"));
    suspend(t);
    return nullptr;
  }
  if (owner)
    *owner = b;
  return &it->second;
}

void Grid::mbarrierInit(Thread &t, int64_t addr, int64_t count, int32_t site) {
  int64_t offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  int64_t window = sharedWindowBytes(p);
  if (offset < 0 || offset + 8 > window || offset % 8 || count < 1 ||
      count > (int64_t(1) << 20) - 1) {
    fail(t, where(t) + ": mbarrier.init at " + this->site(site) + " of " +
                std::to_string(count) + " arrivals at address " + hex(addr) +
                " (needs an 8-byte aligned word of workgroup memory and 1 to "
                "2^20 - 1 arrivals)");
    suspend(t);
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

void Grid::mbarrierInval(Thread &t, int64_t addr, int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.inval", site);
  if (!b)
    return;
  if (b->pending != b->expected || b->tx != 0 || !b->copies.empty()) {
    fail(t, where(t) + ": mbarrier.inval at " + this->site(site) +
                " of the mbarrier at workgroup byte " +
                std::to_string(addr - reinterpret_cast<int64_t>(t.block->shared)) +
                " while its phase is incomplete (" +
                std::to_string(b->expected - b->pending) + " of " +
                std::to_string(b->expected) + " arrivals, " +
                std::to_string(b->tx) + " transaction bytes outstanding, " +
                std::to_string(b->copies.size()) +
                " bulk copies not landed): undefined on a GPU");
    suspend(t);
    return;
  }
  t.block->mbarriers.erase(addr - reinterpret_cast<int64_t>(t.block->shared));
}

int64_t Grid::mbarrierArriveCount(Thread &t, int64_t addr, int64_t count,
                                  bool relaxed, int32_t site) {
  Block *owner = nullptr;
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.arrive", site, &owner);
  if (!b)
    return 0;
  int64_t phase = b->phase;
  if (count < 1 || count > (int64_t(1) << 20) - 1) {
    fail(t, where(t) + ": mbarrier.arrive at " + this->site(site) +
                " with a count of " + std::to_string(count) +
                " (1 to 2^20 - 1)");
    suspend(t);
    return 0;
  }
  // A release arrival passes on what the thread knows of retired MMAs,
  // whichever block's barrier it arrives on (the keys name the block).
  if (!relaxed)
    publishWgmmaRetirement(t, *b);
  b->pending -= count;
  if (b->pending < 0) {
    fail(t, where(t) + ": mbarrier.arrive at " + this->site(site) +
                " arrives more times than the barrier's " +
                std::to_string(b->expected) + " per phase" +
                (owner == t.block ? "" : " (the barrier of " +
                                             describeBlock(*owner) + ")"));
    suspend(t);
    return 0;
  }
  maybeCompletePhase(*b);
  return phase;
}

int64_t Grid::mapa(Thread &t, int64_t addr, int32_t rank, int32_t site) {
  int64_t offset;
  Block *from = sharedOwner(t, addr, offset);
  if (!from) {
    fail(t, where(t) + ": mapa at " + this->site(site) + " of address " +
                hex(addr) +
                ", which is not in the workgroup memory of its block (nor of "
                "a block of its cluster)");
    suspend(t);
    return 0;
  }
  if (rank < 0 || rank >= clusterBlocks) {
    fail(t, where(t) + ": mapa at " + this->site(site) + " to the block of "
                "rank " + std::to_string(rank) + ", but its cluster " +
                formatDim(p.cluster) + " has " +
                std::to_string(clusterBlocks) + " block" +
                (clusterBlocks == 1 ? " (rank 0)"
                                    : "s (ranks 0 to " +
                                          std::to_string(clusterBlocks - 1) +
                                          ")"));
    suspend(t);
    return 0;
  }
  return reinterpret_cast<int64_t>(
      t.block->cluster->blocks[size_t(rank)]->shared + offset);
}

void Grid::mbarrierArrive(Thread &t, int64_t addr, int64_t txBytes,
                          int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.arrive", site);
  if (!b)
    return;
  b->tx += txBytes;
  publishWgmmaRetirement(t, *b);
  if (--b->pending < 0) {
    fail(t, where(t) + ": mbarrier.arrive at " + this->site(site) +
                " arrives more times than the barrier's " +
                std::to_string(b->expected) + " per phase");
    suspend(t);
    return;
  }
  maybeCompletePhase(*b);
}

int64_t Grid::landTma(Thread &t, const TmaCopy &copy) {
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
    char *to = window + swizzledSharedAddress(base + e * m.elementBytes, m.swizzle);
    if (!t.block->wgmmaReadChunks.empty())
      checkWgmmaOperandWrite(t, reinterpret_cast<int64_t>(to), m.elementBytes,
                             copy.site, "lands a bulk tensor copy into",
                             /*byThread=*/false);
    if (!t.block->bulkReads.empty())
      checkBulkSourceWrite(t, reinterpret_cast<int64_t>(to), m.elementBytes,
                           copy.site, "lands a bulk tensor copy into",
                           /*byThread=*/false);
    if (t.block->proxyTracking)
      forgetGenericWrites(*t.block, reinterpret_cast<int64_t>(to),
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

bool Grid::mbarrierTryWait(Thread &t, int64_t addr, int32_t parity,
                           int32_t site) {
  MBarrier *b = mbarrierAt(t, addr, "mbarrier.try_wait.parity", site);
  if (!b)
    return false;
  // The copies it tracks land now (in issue order), completing their bytes.
  std::vector<TmaCopy> copies = std::move(b->copies);
  b->copies.clear();
  for (const TmaCopy &copy : copies) {
    b->tx -= landTma(t, copy);
    maybeCompletePhase(*b);
  }
  // The phase of parity `parity` has completed once the current one's
  // parity differs (PTX: waiting on the previous phase's parity returns at
  // once).
  if ((b->phase & 1) != (parity & 1)) {
    t.waitingFor.clear();
    learnWgmmaRetirement(t, *b);
    // What the arrivals did before is ordered before what the waiter does
    // next (a fence.proxy.async before an arrival, say).
    ++t.block->syncs;
    return true;
  }
  int64_t offset = addr - reinterpret_cast<int64_t>(t.block->shared);
  t.waitingFor = "the mbarrier at workgroup byte " + std::to_string(offset) +
                 " to complete its phase of parity " +
                 std::to_string(parity & 1) + " (it is in phase " +
                 std::to_string(b->phase) + ", " +
                 std::to_string(b->pending) + " of " +
                 std::to_string(b->expected) + " arrivals and " +
                 std::to_string(b->tx) +
                 " transaction bytes still to come): a wait on the wrong "
                 "parity, or an expect_tx that does not match the copies?";
  schedule(t, EXT_EMU_ATOMIC, site);
  return false;
}

/// Whether a bulk tensor copy of `map` into `t`'s workgroup address `dst`
/// is one the hardware takes (else the launch fails and `t` is suspended).
bool Grid::checkTmaIssue(Thread &t, const TensorMap *map, int64_t dst,
                         int32_t site, bool store) {
  if (!map || map->magic != TensorMap::kMagic) {
    fail(t, where(t) + ": cp.async.bulk.tensor at " + this->site(site) +
                " with " + hex(reinterpret_cast<int64_t>(map)) +
                ", which is not a tensor map nvgpu.tma.create.descriptor "
                "made");
    suspend(t);
    return false;
  }
  int64_t offset = dst - reinterpret_cast<int64_t>(t.block->shared);
  int64_t window = sharedWindowBytes(p);
  int64_t bytes = map->boxBytes();
  // PTX: the destination is 128-byte aligned. (The swizzle follows the
  // address bits, so a box off its 1024-byte repeat is laid out as the
  // same addresses read back by a wgmma descriptor with a base offset.)
  int64_t alignment = 128;
  if (offset < 0 || offset + bytes > window || offset % alignment) {
    fail(t, where(t) + ": cp.async.bulk.tensor at " + this->site(site) +
                (store ? " reads " : " writes ") + std::to_string(bytes) +
                (store ? " bytes from workgroup byte " : " bytes at workgroup byte ") +
                std::to_string(offset) +
                " (needs " + std::to_string(alignment) +
                "-byte alignment and room in the block's " +
                std::to_string(window) + " bytes)");
    suspend(t);
    return false;
  }
  return true;
}

void Grid::tmaLoad(Thread &t, const TensorMap *map, int64_t dst,
                   int64_t barrier, const int64_t *coords, int32_t site) {
  if (!checkTmaIssue(t, map, dst, site))
    return;
  // The copy may land as soon as it is issued: into bytes an MMA in flight
  // reads, that is a write under the MMA whenever it would land.
  if (t.block->hasWgmmaReads())
    checkWgmmaOperandWrite(t, dst, map->boxBytes(), site,
                           "issues a bulk tensor copy into");
  if (t.block->hasBulkReads())
    checkBulkSourceWrite(t, dst, map->boxBytes(), site,
                         "issues a bulk tensor copy into");
  MBarrier *b = mbarrierAt(t, barrier, "cp.async.bulk.tensor", site);
  if (!b)
    return;
  TmaCopy copy{map, reinterpret_cast<char *>(dst), {0, 0, 0, 0, 0}, site};
  for (int32_t d = 0; d < map->rank; ++d)
    copy.coords[d] = coords[d];
  b->copies.push_back(copy);
}

void Grid::tmaLoadMulticast(Thread &t, const TensorMap *map, int64_t dst,
                            int64_t barrier, const int64_t *coords,
                            int32_t mask, int32_t site) {
  if (!checkTmaIssue(t, map, dst, site))
    return;
  uint32_t bits = uint32_t(mask) & 0xffff;
  if (bits == 0 || (bits >> clusterBlocks) != 0) {
    int32_t beyond = bits ? 31 - __builtin_clz(bits) : 0;
    std::string blocks = std::to_string(clusterBlocks) + " block" +
                         (clusterBlocks == 1 ? "" : "s") + " (ranks 0 to " +
                         std::to_string(clusterBlocks - 1) + ")";
    fail(t, where(t) + ": cp.async.bulk.tensor at " + this->site(site) +
                " with multicast mask " + hex(bits) +
                (bits == 0 ? std::string(", which names no block")
                           : ", whose bit " + std::to_string(beyond) +
                                 " is beyond its cluster's " + blocks));
    suspend(t);
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
      checkWgmmaOperandWrite(t, to, map->boxBytes(), site,
                             "issues a bulk tensor copy (multicast) into",
                             /*byThread=*/true, d);
    Block *owner = nullptr;
    MBarrier *b = mbarrierAt(
        t, reinterpret_cast<int64_t>(d->shared) + barrierOffset,
        "cp.async.bulk.tensor (multicast)", site, &owner);
    if (!b)
      return;
    TmaCopy copy{map, reinterpret_cast<char *>(to), {0, 0, 0, 0, 0}, site};
    for (int32_t k = 0; k < map->rank; ++k)
      copy.coords[k] = coords[k];
    b->copies.push_back(copy);
  }
}

const TensorMap *ext::emu::tensorMapOfRank(Thread &t, int64_t map,
                                           int32_t rank, int32_t site,
                                           const char *what) {
  const auto *m = reinterpret_cast<const TensorMap *>(map);
  if (m && m->magic == TensorMap::kMagic && rank != m->rank)
    t.launch->instructionFailed(t, site,
                                std::string(what) + " with " +
                                    std::to_string(rank) +
                                    " coordinates on a rank-" +
                                    std::to_string(m->rank) + " tensor map");
  return m;
}

extern "C" {

int64_t __ext_emu_tensor_map_create(int64_t base, int32_t elementBytes,
                                    int32_t rank, const int64_t *sizes,
                                    const int64_t *strides, const int64_t *box,
                                    int32_t swizzle, int32_t oobNan) {
  // cuTensorMapEncodeTiled's rules, so that what fails on a GPU fails here.
  std::string why;
  if (rank < 1 || rank > 5)
    why = "rank " + std::to_string(rank) + " (1 to 5)";
  else if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 &&
           elementBytes != 8)
    why = "elements of " + std::to_string(elementBytes) + " bytes";
  else if (base % 16)
    why = "a global address not 16-byte aligned";
  else if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    why = "swizzle " + std::to_string(swizzle);
  auto *map = new TensorMap();
  map->base = reinterpret_cast<const char *>(base);
  map->elementBytes = elementBytes;
  map->rank = rank;
  map->swizzle = swizzle;
  map->oobNan = oobNan != 0;
  for (int32_t d = 0; why.empty() && d < rank; ++d) {
    int32_t from = rank - 1 - d; // innermost first
    map->sizes[d] = sizes[from];
    map->strides[d] = strides[from] * elementBytes;
    map->box[d] = box[from];
    if (map->box[d] < 1 || map->box[d] > 256)
      why = "box dimension " + std::to_string(map->box[d]) + " (1 to 256)";
    else if (d > 0 && map->strides[d] % 16)
      why = "a stride of " + std::to_string(map->strides[d]) +
            " bytes (a multiple of 16)";
  }
  if (why.empty() && (map->box[0] * elementBytes) % 16)
    why = "an innermost box of " + std::to_string(map->box[0] * elementBytes) +
          " bytes (a multiple of 16)";
  if (why.empty() && swizzle && map->box[0] * elementBytes > swizzle)
    why = "an innermost box of " + std::to_string(map->box[0] * elementBytes) +
          " bytes under a " + std::to_string(swizzle) +
          "-byte swizzle (at most the swizzle's width)";
  if (!why.empty()) {
    delete map;
    std::string message = "nvgpu.tma.create.descriptor: the tensor map has " +
                          why + ", which cuTensorMapEncodeTiled refuses";
    __ext_emu_host_assert_fail(message.c_str(), /*guarded=*/0);
    return 0;
  }
  // Lives as long as the process, as a CUtensorMap the host keeps.
  return reinterpret_cast<int64_t>(map);
}

void __ext_emu_mbarrier_init(int64_t addr, int32_t count, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mbarrier_init");
  t->launch->mbarrierInit(*t, addr, count, site);
}

void __ext_emu_mbarrier_arrive(int64_t addr, int64_t txBytes, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mbarrier_arrive");
  t->launch->mbarrierArrive(*t, addr, txBytes, site);
}

void __ext_emu_mbarrier_inval(int64_t addr, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mbarrier_inval");
  t->launch->mbarrierInval(*t, addr, site);
}

int32_t __ext_emu_mbarrier_try_wait_parity(int64_t addr, int32_t parity,
                                           int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mbarrier_try_wait_parity");
  return t->launch->mbarrierTryWait(*t, addr, parity, site) ? 1 : 0;
}

void __ext_emu_tma_load(int64_t map, int64_t dst, int64_t barrier,
                        const int64_t *coords, int32_t rank, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_tma_load");
  const TensorMap *m = tensorMapOfRank(*t, map, rank, site,
                                       "cp.async.bulk.tensor");
  t->launch->tmaLoad(*t, m, dst, barrier, coords, site);
}

void __ext_emu_tma_load_multicast(int64_t map, int64_t dst, int64_t barrier,
                                  const int64_t *coords, int32_t rank,
                                  int32_t mask, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_tma_load_multicast");
  const TensorMap *m = tensorMapOfRank(*t, map, rank, site,
                                       "cp.async.bulk.tensor");
  t->launch->tmaLoadMulticast(*t, m, dst, barrier, coords, mask, site);
}

int64_t __ext_emu_mapa(int64_t addr, int32_t rank, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mapa");
  return t->launch->mapa(*t, addr, rank, site);
}

int64_t __ext_emu_mbarrier_arrive_count(int64_t addr, int32_t count,
                                        int32_t relaxed, int32_t site) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("__ext_emu_mbarrier_arrive_count");
  return t->launch->mbarrierArriveCount(*t, addr, count, relaxed != 0, site);
}

} // extern "C"
