//===- TmaStore.cpp - bulk tensor stores and the async proxy on the CPU ---===//
//
// Hopper's TMA store (PTX ISA 9.7.9.25, cp.async.bulk.tensor from
// shared::cta to global) and the bulk async-groups that complete it
// (cp.async.bulk.commit_group, cp.async.bulk.wait_group[.read]).
//
// A store reads its box from the issuing block's workgroup memory through
// the map's swizzle (the addresses a TMA load of the same map writes) and
// writes the elements inside the tensor to global memory; the copy engine
// clips the rest. It is asynchronous per thread, as the hardware's is: the
// stores a thread issued since its last commit form a group; wait_group N
// returns once at most N of its groups are incomplete, wait_group.read N once
// at most N have not finished reading their source. Here the source is read
// at the wait that covers the store (or, with a nonzero seed, at one of the
// issuing thread's yield points before it), global memory written at the
// covering wait_group without .read, at the thread's exit or (seeded)
// earlier: a kernel that reads the output after only a .read wait sees the
// old bytes.
//
// What the asynchrony could get wrong is checked whatever the schedule:
// from the issue until a wait of its thread covers it, a store's source
// chunks are "in flight", and a write there by any thread (a store, a copy
// issued or landing) fails the launch; after the wait, a write by a thread
// the wait is not ordered before (not the issuer, no barrier since, nothing
// an mbarrier passed on) fails too. And the copy engine reads through the
// async proxy: in kernels of modules that issue TMA stores, every ordinary
// write to workgroup memory is noted per 16-byte chunk until its writer
// executes fence.proxy.async; a store whose source has a write its writer
// did not fence, or fenced with no barrier between the fence and the
// issue, fails at its issue.
//
//===----------------------------------------------------------------------===//

#include "TmaStore.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace ext::emu;

void BulkStoreUnit::trackGenericWrites(Thread &t) {
  t.block->proxyTracking = true;
}

namespace {

/// The bits of the bytes of chunk `chunk` (16 bytes) that [offset, offset +
/// bytes) covers.
uint32_t chunkBytes(int64_t chunk, int64_t offset, int64_t bytes) {
  int64_t from = std::max(offset, chunk * 16) - chunk * 16;
  int64_t to = std::min(offset + bytes, chunk * 16 + 16) - chunk * 16;
  return ((uint32_t(1) << to) - 1) & ~((uint32_t(1) << from) - 1);
}

} // namespace

void BulkStoreUnit::recordGenericWrite(Thread &t, int64_t addr, int64_t bytes,
                                       int32_t site) {
  Block &b = *t.block;
  int64_t offset = addr - reinterpret_cast<int64_t>(b.shared);
  if (offset < 0 || offset >= ctx.sharedBytes || bytes <= 0)
    return;
  for (int64_t chunk = offset / 16; chunk <= (offset + bytes - 1) / 16;
       ++chunk) {
    uint32_t mask = chunkBytes(chunk, offset, bytes);
    std::vector<Block::GenericWrite> &writes = b.genericWrites[chunk];
    // Other threads' writes of these bytes are replaced (if nothing orders
    // them, the race detector says so), and writes fenced before a barrier
    // since are visible to every later store: neither needs tracking.
    bool own = false;
    writes.erase(std::remove_if(writes.begin(), writes.end(),
                                [&](Block::GenericWrite &w) {
                                  if (w.thread == t.linear)
                                    return false;
                                  w.bytes &= ~mask;
                                  return w.bytes == 0 ||
                                         (w.fenced >= 0 && w.fenced < b.syncs);
                                }),
                 writes.end());
    for (Block::GenericWrite &w : writes) {
      if (w.thread != t.linear)
        continue;
      own = true;
      w.bytes |= mask;
      w.site = site;
      if (w.fenced >= 0) {
        w.fenced = -1;
        t.unfencedChunks.push_back(chunk);
      }
    }
    if (!own) {
      writes.push_back({t.linear, site, mask, -1});
      t.unfencedChunks.push_back(chunk);
    }
  }
}

void BulkStoreUnit::forgetGenericWrites(Block &b, int64_t addr, int64_t bytes) {
  int64_t offset = addr - reinterpret_cast<int64_t>(b.shared);
  if (offset < 0 || offset >= ctx.sharedBytes || bytes <= 0)
    return;
  for (int64_t chunk = offset / 16; chunk <= (offset + bytes - 1) / 16;
       ++chunk) {
    auto it = b.genericWrites.find(chunk);
    if (it == b.genericWrites.end())
      continue;
    uint32_t mask = chunkBytes(chunk, offset, bytes);
    auto &writes = it->second;
    writes.erase(std::remove_if(writes.begin(), writes.end(),
                                [&](Block::GenericWrite &w) {
                                  w.bytes &= ~mask;
                                  return w.bytes == 0;
                                }),
                 writes.end());
  }
}

void BulkStoreUnit::fenceProxyAsync(Thread &t, int32_t site) {
  (void)site;
  Block &b = *t.block;
  if (!b.proxyTracking)
    return;
  for (int64_t chunk : t.unfencedChunks) {
    auto it = b.genericWrites.find(chunk);
    if (it == b.genericWrites.end())
      continue;
    for (Block::GenericWrite &w : it->second)
      if (w.thread == t.linear && w.fenced < 0)
        w.fenced = b.syncs;
  }
  t.unfencedChunks.clear();
}

void BulkStoreUnit::checkSourceWrite(Thread &t, int64_t addr, int64_t bytes,
                                     int32_t site, const char *what,
                                     bool byThread) {
  Block &b = *t.block;
  for (int64_t chunk = addr & ~int64_t(15); chunk < addr + bytes; chunk += 16) {
    std::string at =
        "workgroup byte " +
        std::to_string(chunk - reinterpret_cast<int64_t>(b.shared));
    auto reading = b.bulkReads.find(chunk);
    if (reading != b.bulkReads.end()) {
      ctx.failLaunch(
          t, ctx.describe(t) + ": " + ctx.location(site) + " " + what +
                 " shared memory a bulk tensor store still reads (" + at +
                 "): the store at " + ctx.location(reading->second.site) +
                 ", issued by " +
                 ctx.describe(b.threads[reading->second.issuer]) +
                 ", reads it until a cp.async.bulk.wait_group.read of that "
                 "thread covers it, and a barrier after that wait orders "
                 "this write");
      return;
    }
    if (!byThread)
      continue;
    auto done = b.bulkRetiredChunks.find(chunk);
    if (done == b.bulkRetiredChunks.end())
      continue;
    const Block::BulkRetired &r = done->second;
    if (r.key == ctx.bulkKey(t) && t.bulkRetired >= r.sequence)
      continue;
    auto learned = t.wgmmaLearned.find(r.key);
    if (learned != t.wgmmaLearned.end() && learned->second >= r.sequence)
      continue;
    ctx.failLaunch(
        t, ctx.describe(t) + ": " + ctx.location(site) + " " + what +
               " shared memory a bulk tensor store still reads (" + at +
               "): the cp.async.bulk.wait_group.read of " +
               ctx.describe(b.threads[r.issuer]) + " covered the store at " +
               ctx.location(r.site) +
               ", but nothing orders this write after that wait (a barrier "
               "after the wait)");
    return;
  }
}

void BulkStoreUnit::issueStore(Thread &t, const TensorMap *map, int64_t src,
                               const int64_t *coords, int32_t site) {
  if (!checkTensorCopyIssue(ctx, t, map, src, site, /*store=*/true))
    return;
  Block &b = *t.block;
  TmaStore store;
  store.map = map;
  store.src = reinterpret_cast<char *>(src);
  std::fill(std::begin(store.coords), std::end(store.coords), 0);
  for (int32_t d = 0; d < map->rank; ++d)
    store.coords[d] = coords[d];
  store.site = site;
  store.sequence = t.bulkSequence++;
  // The box's 16-byte chunks (an innermost box is a multiple of 16 bytes),
  // in box order, where the swizzle puts them.
  int64_t base = src - reinterpret_cast<int64_t>(b.shared);
  int64_t bytes = map->boxBytes();
  store.chunks.reserve(size_t(bytes / 16));
  for (int64_t o = 0; o < bytes; o += 16)
    store.chunks.push_back(reinterpret_cast<int64_t>(b.shared) +
                           swizzledSharedAddress(base + o, map->swizzle));
  // The copy engine reads through the async proxy: every ordinary write to
  // its source must have been fenced by its writer, and the fence ordered
  // before this issue.
  if (b.proxyTracking) {
    for (int64_t chunk : store.chunks) {
      int64_t index = (chunk - reinterpret_cast<int64_t>(b.shared)) / 16;
      auto it = b.genericWrites.find(index);
      if (it == b.genericWrites.end())
        continue;
      for (const Block::GenericWrite &w : it->second) {
        bool unfenced = w.fenced < 0;
        if (!unfenced && (w.thread == t.linear || w.fenced < b.syncs))
          continue;
        ctx.failLaunch(
            t,
            ctx.describe(t) + ": cp.async.bulk.tensor at " +
                ctx.location(site) + " reads shared memory (workgroup byte " +
                std::to_string(index * 16) + ") that " +
                ctx.describe(b.threads[w.thread]) + " wrote at " +
                ctx.location(w.site) +
                (unfenced ? " without fence.proxy.async: the bulk copy may "
                            "read stale bytes (the writer executes "
                            "nvvm.fence.proxy {kind = async.shared} after its "
                            "writes, then a barrier orders the fence before "
                            "the store)"
                          : " and fenced with fence.proxy.async, but no "
                            "barrier orders that fence before this store: "
                            "the bulk copy may read stale bytes"));
        return;
      }
    }
  }
  for (int64_t chunk : store.chunks) {
    Block::BulkRead &r = b.bulkReads[chunk];
    if (r.count++ == 0) {
      r.site = site;
      r.issuer = t.linear;
    }
  }
  t.bulkOpen.push_back(std::move(store));
  landEarly(t);
}

void BulkStoreUnit::readSource(Thread &t, TmaStore &store) {
  if (store.read)
    return;
  store.read = true;
  store.box.resize(store.chunks.size() * 16);
  for (size_t i = 0; i < store.chunks.size(); ++i) {
    std::memcpy(store.box.data() + 16 * i,
                reinterpret_cast<const char *>(store.chunks[i]), 16);
    ctx.recordAccess(t, store.chunks[i], 16, EXT_EMU_WORKGROUP | EXT_EMU_LOAD,
                     store.site);
  }
}

void BulkStoreUnit::writeGlobal(Thread &t, TmaStore &store) {
  if (store.written)
    return;
  readSource(t, store);
  store.written = true;
  const TensorMap &m = *store.map;
  int64_t rows = 1;
  for (int32_t d = 1; d < m.rank; ++d)
    rows *= m.box[d];
  int64_t rowBytes = m.box[0] * m.elementBytes;
  // The innermost run of each box row inside the tensor.
  int64_t c0 = store.coords[0];
  int64_t first = std::max<int64_t>(0, -c0);
  int64_t last = std::min<int64_t>(m.box[0], m.sizes[0] - c0);
  if (first >= last)
    return;
  int64_t index[5] = {0, 0, 0, 0, 0};
  for (int64_t row = 0; row < rows; ++row) {
    bool inside = true;
    int64_t offset = (c0 + first) * m.strides[0];
    for (int32_t d = 1; d < m.rank; ++d) {
      int64_t c = store.coords[d] + index[d];
      inside &= c >= 0 && c < m.sizes[d];
      offset += c * m.strides[d];
    }
    if (inside) {
      char *to = const_cast<char *>(m.base) + offset;
      int64_t bytes = (last - first) * m.elementBytes;
      std::memcpy(to,
                  store.box.data() + row * rowBytes + first * m.elementBytes,
                  size_t(bytes));
      ctx.recordAccess(t, reinterpret_cast<int64_t>(to), bytes,
                       EXT_EMU_GLOBAL | EXT_EMU_STORE, store.site);
    }
    for (int32_t d = 1; d < m.rank && ++index[d] == m.box[d]; ++d)
      index[d] = 0;
  }
}

void BulkStoreUnit::retireRead(Thread &t, TmaStore &store) {
  if (store.readRetired)
    return;
  readSource(t, store);
  store.readRetired = true;
  Block &b = *t.block;
  for (int64_t chunk : store.chunks) {
    auto it = b.bulkReads.find(chunk);
    if (it != b.bulkReads.end() && --it->second.count == 0)
      b.bulkReads.erase(it);
    b.bulkRetiredChunks[chunk] = {store.site, t.linear, ctx.bulkKey(t),
                                  store.sequence};
  }
  t.bulkRetired = std::max(t.bulkRetired, store.sequence);
}

void BulkStoreUnit::landEarly(Thread &t) {
  if (ctx.config->seed == 0)
    return;
  // The oldest store not written yet: stores land in issue order.
  TmaStore *oldest = nullptr;
  for (BulkGroup &g : t.bulkGroups) {
    for (TmaStore &s : g.stores)
      if (!s.written) {
        oldest = &s;
        break;
      }
    if (oldest)
      break;
  }
  if (!oldest)
    for (TmaStore &s : t.bulkOpen)
      if (!s.written) {
        oldest = &s;
        break;
      }
  if (!oldest || t.block->rng() % 4 != 0)
    return;
  // Its reads stay in flight for the checks until a wait covers them.
  writeGlobal(t, *oldest);
}

void BulkStoreUnit::commitGroup(Thread &t) {
  BulkGroup group;
  group.stores = std::move(t.bulkOpen);
  t.bulkOpen.clear();
  t.bulkGroups.push_back(std::move(group));
}

void BulkStoreUnit::waitGroup(Thread &t, int32_t pending, bool read,
                              int32_t site) {
  (void)site;
  size_t keep = size_t(std::max(pending, 0));
  if (read) {
    // Groups retire their reads in order: all but the newest `keep` of
    // those still reading.
    size_t n = t.bulkGroups.size();
    for (size_t i = 0; i + keep < n; ++i) {
      BulkGroup &g = t.bulkGroups[i];
      if (g.readRetired)
        continue;
      for (TmaStore &s : g.stores)
        retireRead(t, s);
      g.readRetired = true;
    }
    return;
  }
  size_t n = t.bulkGroups.size();
  if (n <= keep)
    return;
  for (size_t i = 0; i + keep < n; ++i)
    for (TmaStore &s : t.bulkGroups[i].stores) {
      writeGlobal(t, s);
      retireRead(t, s);
    }
  t.bulkGroups.erase(t.bulkGroups.begin(),
                     t.bulkGroups.begin() + std::ptrdiff_t(n - keep));
}

void BulkStoreUnit::completeAll(Thread &t) {
  // A kernel's end completes its bulk stores.
  if (!t.bulkOpen.empty())
    commitGroup(t);
  waitGroup(t, 0, /*read=*/false, -1);
}
