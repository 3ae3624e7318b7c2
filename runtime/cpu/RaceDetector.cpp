//===- RaceDetector.cpp - data races among emulated GPU threads -----------===//

#include "RaceDetector.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ext::emu {

namespace {

void joinInto(VectorClock &into, const VectorClock &from) {
  if (from.empty())
    return;
  VectorClock out;
  out.reserve(into.size() + from.size());
  size_t i = 0, j = 0;
  while (i < into.size() || j < from.size()) {
    if (j == from.size() || (i < into.size() && into[i].first < from[j].first))
      out.push_back(into[i++]);
    else if (i == into.size() || from[j].first < into[i].first)
      out.push_back(from[j++]);
    else {
      out.push_back({into[i].first, std::max(into[i].second, from[j].second)});
      ++i, ++j;
    }
  }
  into.swap(out);
}

void setEntry(VectorClock &vc, uint32_t id, uint32_t clock) {
  auto it = std::lower_bound(vc.begin(), vc.end(), std::make_pair(id, 0u));
  if (it != vc.end() && it->first == id)
    it->second = std::max(it->second, clock);
  else
    vc.insert(it, {id, clock});
}

uint32_t entry(const VectorClock &vc, uint32_t id) {
  auto it = std::lower_bound(vc.begin(), vc.end(), std::make_pair(id, 0u));
  return it != vc.end() && it->first == id ? it->second : 0;
}

} // namespace

RaceDetector::RaceDetector(const LaunchParams &params, int64_t sharedBytes)
    : p(params), blockThreads(params.block.count()), sharedBytes(sharedBytes) {
  std::unordered_map<std::string, int32_t> first;
  for (size_t i = 0; i < p.sites.size(); ++i)
    location.push_back(first.try_emplace(p.sites[i], int32_t(i)).first->second);
}

void RaceDetector::initBlock(BlockRaceState &state) const {
  if (sharedBytes > 0)
    state.sharedShadow = std::make_unique<Shadow[]>(sharedBytes);
}

const std::string &RaceDetector::site(int32_t index) const {
  static const std::string unknown = "<unknown location>";
  if (index < 0 || size_t(index) >= p.sites.size())
    return unknown;
  return p.sites[index];
}

/// Whether `a` happens before the access `t` is making now.
bool RaceDetector::ordered(const Access &a, const AccessingThread &t,
                           bool shared) const {
  if (a.gtid == t.gtid)
    return true;
  int64_t aBlock = int64_t(a.gtid) / blockThreads;
  if (aBlock == t.block)
    return a.epoch < t.state.epoch;
  // Shared memory is per block; across blocks only global memory, ordered
  // by what the accessing block acquired from the earlier one.
  return !shared && entry(t.state.vc, uint32_t(aBlock)) >= a.clock;
}

void RaceDetector::report(RaceKind kind, bool shared, int64_t where,
                          const Access &first, const AccessingThread &t,
                          int32_t site) {
  auto at = [&](int32_t s) {
    return s >= 0 && size_t(s) < location.size() ? location[s] : s;
  };
  RaceReport &r = races[{int(kind), shared, at(first.site), at(site)}];
  // Counted once per access (not per byte it covers).
  if (r.lastAccess == accessSerial)
    return;
  r.lastAccess = accessSerial;
  ++raceCount;
  if (r.count++ == 0) {
    r.kind = kind;
    r.shared = shared;
    r.where = where;
    r.firstGtid = first.gtid;
    r.secondGtid = t.gtid;
    r.firstSite = first.site;
    r.secondSite = site;
    r.order = raceCount;
  }
}

void RaceDetector::check(Shadow &sh, const AccessingThread &t, int32_t op,
                         bool atomic, int32_t site, bool shared,
                         int64_t where, bool unrecorded) {
  Access cur{site, t.gtid, t.state.epoch, t.state.clock, atomic};
  bool writes = op & EXT_EMU_STORE;
  if (sh.write.valid() && !(atomic && sh.write.atomic) &&
      !ordered(sh.write, t, shared))
    report(writes ? RaceKind::WriteAfterWrite : RaceKind::ReadAfterWrite,
           shared, where, sh.write, t, site);
  if (writes) {
    for (Access &r : sh.readers)
      if (r.valid() && !(atomic && r.atomic) && !ordered(r, t, shared))
        report(RaceKind::WriteAfterRead, shared, where, r, t, site);
    sh.write = cur;
    for (Access &r : sh.readers)
      r.site = -1;
    return;
  }
  if (unrecorded)
    return;
  // A read: replace this thread's earlier read, a free slot, or (shared
  // memory) a read every later access is ordered after; otherwise one
  // slot (a race with the read dropped may go unreported, never invented).
  Access *slot = nullptr;
  for (Access &r : sh.readers)
    if (r.valid() && r.gtid == cur.gtid)
      slot = &r;
  for (Access &r : sh.readers)
    if (!slot && (!r.valid() || (shared && r.epoch < cur.epoch)))
      slot = &r;
  if (!slot)
    slot = &sh.readers[cur.gtid % Shadow::kReaders];
  *slot = cur;
}

void RaceDetector::recordAccess(const AccessingThread &t, int64_t addr,
                                int64_t bytes, int32_t kind, int32_t site) {
  if (kind & EXT_EMU_FENCE) {
    recordFence(t, kind);
    return;
  }
  if (bytes <= 0)
    return;
  ++accessSerial;
  int32_t op = kind & EXT_EMU_OP_MASK;
  bool atomic = kind & EXT_EMU_ATOMIC;
  char *ptr = reinterpret_cast<char *>(addr);
  if (kind & EXT_EMU_WORKGROUP) {
    if (!t.state.sharedShadow || ptr < t.shared ||
        ptr + bytes > t.shared + sharedBytes)
      return;
    int64_t offset = ptr - t.shared;
    for (int64_t i = 0; i < bytes; ++i)
      check(t.state.sharedShadow[offset + i], t, op, atomic, site, true,
            offset + i, kind & EXT_EMU_UNRECORDED_READ);
    return;
  }
  // Private memory (the thread's stack) is not shared.
  if (t.stackTop && ptr <= t.stackTop + 256 &&
      ptr + bytes >= t.stackTop - int64_t(t.stackBytes))
    return;
  if (atomic) {
    // Synchronization through the atomic's address, at block granularity:
    // a release write publishes the block's clock, a relaxed write what
    // its last release fence released; an acquire read takes the address's
    // clock at once, a relaxed read keeps it for the next acquire fence.
    VectorClock &sync = syncObjects[uint64_t(addr)];
    if (op & EXT_EMU_LOAD) {
      if (kind & EXT_EMU_ACQUIRE)
        joinInto(t.state.vc, sync);
      else
        joinInto(t.state.pendingAcquire, sync);
    }
    if (op & EXT_EMU_STORE) {
      if (kind & EXT_EMU_RELEASE) {
        joinInto(sync, t.state.vc);
        setEntry(sync, uint32_t(t.block), t.state.clock);
        ++t.state.clock;
      } else {
        joinInto(sync, t.state.fenceReleased);
      }
    }
  }
  for (int64_t i = 0; i < bytes; ++i)
    check(globalShadow[uint64_t(addr + i)], t, op, atomic, site, false,
          addr + i, kind & EXT_EMU_UNRECORDED_READ);
}

void RaceDetector::clusterBarrierReleased(
    const std::vector<std::pair<int64_t, BlockRaceState *>> &blocks) {
  VectorClock released;
  for (auto [id, st] : blocks) {
    joinInto(released, st->vc);
    setEntry(released, uint32_t(id), st->clock);
  }
  for (auto [id, st] : blocks) {
    joinInto(st->vc, released);
    ++st->clock;
    ++st->epoch;
  }
}

void RaceDetector::recordFence(const AccessingThread &t, int32_t kind) {
  BlockRaceState &st = t.state;
  if (kind & EXT_EMU_ACQUIRE) {
    joinInto(st.vc, st.pendingAcquire);
    st.pendingAcquire.clear();
  }
  if (kind & EXT_EMU_RELEASE) {
    st.fenceReleased = st.vc;
    setEntry(st.fenceReleased, uint32_t(t.block), st.clock);
    ++st.clock;
  }
}

void RaceDetector::nameShared(char *shared, const char *name, int64_t addr,
                              int64_t bytes) {
  char *ptr = reinterpret_cast<char *>(addr);
  if (!name || ptr < shared || ptr - shared >= sharedBytes || bytes <= 0)
    return;
  sharedViews.insert({ptr - shared, bytes, name});
}

std::string RaceDetector::describeThread(uint32_t g) const {
  int64_t blk = int64_t(g) / blockThreads, thr = int64_t(g) % blockThreads;
  return "thread " + formatDim(delinearize(thr, p.block)) + " of block " +
         formatDim(delinearize(blk, p.grid));
}

/// "shared memory, byte 4 of <buffer>" or "global memory, byte 8 of
/// <buffer>"; the raw offset or address where no named buffer holds it.
/// Shared bytes also name the views over them (more than one where
/// ext-gpu-reuse-shared-memory gave one range to buffers live at other times).
std::string RaceDetector::describeByte(bool shared, int64_t where) const {
  std::ostringstream os;
  os << (shared ? "shared memory, " : "global memory, ");
  const LaunchParams::Buffer *buffer = nullptr;
  for (const LaunchParams::Buffer &b : p.buffers)
    if (b.shared == shared && where >= b.start && where - b.start < b.bytes) {
      buffer = &b;
      break;
    }
  int64_t dynamicStart = dynamicSharedOffset(p);
  if (buffer) {
    os << "byte " << where - buffer->start << " of " << buffer->name;
  } else if (shared && p.dynamicShared > 0 && where >= dynamicStart) {
    os << "byte " << where - dynamicStart << " of dynamic shared memory";
  } else if (shared) {
    os << "workgroup byte " << where;
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)where);
    os << "address " << buf;
  }
  if (!shared)
    return os.str();
  const char *sep = ", in ";
  for (const auto &[offset, bytes, name] : sharedViews)
    if (where >= offset && where - offset < bytes) {
      os << sep << name << " at byte " << where - offset;
      sep = " or ";
    }
  return os.str();
}

std::string RaceDetector::summary() const {
  if (races.empty())
    return {};
  std::vector<const RaceReport *> list;
  for (auto &[key, r] : races)
    list.push_back(&r);
  std::sort(list.begin(), list.end(),
            [](auto *a, auto *b) { return a->order < b->order; });
  std::ostringstream os;
  os << "racecheck: " << races.size() << " data race"
     << (races.size() == 1 ? "" : "s") << " (" << raceCount
     << " conflicting access pair" << (raceCount == 1 ? "" : "s") << ")";
  static const char *kinds[] = {"read-after-write", "write-after-read",
                                "write-after-write"};
  for (const RaceReport *r : list) {
    bool firstWrites = r->kind != RaceKind::WriteAfterRead;
    bool secondWrites = r->kind != RaceKind::ReadAfterWrite;
    os << "\next-emu: race: " << kinds[int(r->kind)] << " on "
       << describeByte(r->shared, r->where) << ": "
       << (firstWrites ? "write" : "read") << " by "
       << describeThread(r->firstGtid) << " at " << site(r->firstSite)
       << ", then " << (secondWrites ? "write" : "read") << " by "
       << describeThread(r->secondGtid) << " at " << site(r->secondSite) << " ("
       << r->count << " time" << (r->count == 1 ? "" : "s") << ")";
  }
  return os.str();
}

} // namespace ext::emu
