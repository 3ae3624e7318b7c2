//===- WarpgroupMma.cpp - sm_90 warpgroup MMA on the CPU --------*- C++ -*-===//
//
// The wgmma entry points of ext/Runtime/CpuEmulationMatrixABI.h. A
// wgmma.mma_async reads A and B from shared memory through 64-bit matrix
// descriptors; this file decodes them as the PTX ISA defines them
// (9.7.15.5.1.2: the descriptor's fields, the canonical K-major and MN-major
// layouts of 8-row "core matrices", and the 32/64/128-byte swizzles, an XOR of
// address bits 4.. with bits 7..), so a kernel whose shared tile or descriptor
// disagrees with the hardware's reading gets the numbers the GPU would give.
//
// Both operands come from shared memory, so no lane needs another's
// registers: each thread computes its own accumulators. The operation
// completes when it is issued; what the emulator checks instead is what
// the hardware's asynchrony could get wrong: a wgmma.fence before the first
// wgmma.mma_async after a wait; every operation committed before a barrier
// and waited for before the thread's exit; no accumulator read, and no
// write of the shared bytes an MMA reads, while its group is in flight
// (wait_group N > 0 leaves the newest N groups so).
//
//===----------------------------------------------------------------------===//

#include "WarpgroupMma.h"
#include "MatrixElements.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace ext::emu;

namespace {

/// The fields of a wgmma matrix descriptor.
struct Descriptor {
  int64_t start, leading, stride; // bytes, in the shared window
  int32_t baseOffset, swizzle;    // swizzle: 0 (none), 32, 64 or 128 bytes
};

Descriptor decode(int64_t desc) {
  auto field = [&](int lo, int bits) {
    return (uint64_t(desc) >> lo) & ((uint64_t(1) << bits) - 1);
  };
  static const int32_t swizzles[4] = {0, 128, 64, 32};
  return {int64_t(field(0, 14)) << 4, int64_t(field(16, 14)) << 4,
          int64_t(field(32, 14)) << 4, int32_t(field(49, 3)),
          swizzles[field(62, 2)]};
}

/// The byte offset from the descriptor's start of element (`mn`, `k`) of an
/// operand (`mn` its M or N coordinate), before the swizzle: PTX ISA
/// "Canonical Layouts" in bytes, T = 16 / `bytes` elements per 16 bytes.
int64_t canonicalOffset(const Descriptor &d, bool kMajor, int32_t bytes,
                        int32_t mn, int32_t k) {
  int32_t t = 16 / bytes;
  if (kMajor) {
    // ((8,m),(T,2k)): 8 rows of 16 bytes (no swizzle) or of the swizzle's
    // width, 8-row groups `stride` apart; 16-byte columns `leading` apart
    // (no swizzle) or adjacent.
    if (d.swizzle == 0)
      return (mn % 8) * 16 + (mn / 8) * d.stride + (k % t) * bytes +
             (k / t) * d.leading;
    return (mn % 8) * d.swizzle + (mn / 8) * d.stride + (k % t) * bytes +
           (k / t) * 16;
  }
  // MN-major, ((T,1,m),(8,k)) without swizzle: 16-byte runs of T elements
  // `stride` apart, 16 bytes per k in a core matrix, 8-k groups `leading`
  // apart. Swizzled, ((T,W/16,m),(8,k)): rows of W bytes per k, W-byte
  // runs `leading` apart, 8-k groups `stride` apart.
  if (d.swizzle == 0)
    return (mn % t) * bytes + (mn / t) * d.stride + (k % 8) * 16 +
           (k / 8) * d.leading;
  int32_t run = d.swizzle / bytes;
  return (mn % run) * bytes + (mn / run) * d.leading + (k % 8) * d.swizzle +
         (k / 8) * d.stride;
}

struct Operand {
  Descriptor d;
  bool kMajor;
  Elt type;
  const char *window; // the block's shared memory, at window offset 0
  int64_t windowBytes;
  int32_t site;
  const char *name;
  /// Whose read it is, for the launch's error.
  const UnitContext *ctx;
  Thread *thread;

  /// The shared-window offset of element (mn, k).
  int64_t offsetOf(int32_t mn, int32_t k) const {
    return swizzledSharedAddress(
        d.start + canonicalOffset(d, kMajor, eltBytes(type), mn, k), d.swizzle);
  }

  /// Collects this operand's reads (`rows` along M or N, `depth` along K)
  /// as 16-byte chunks, `t`'s share of its warpgroup's.
  void collectReads(std::vector<int64_t> &reads, int32_t inGroup, int32_t rows,
                    int32_t depth) const {
    int32_t per = 16 / eltBytes(type); // elements per chunk
    int32_t alongK = kMajor ? depth / per : depth;
    int32_t alongMN = kMajor ? rows : rows / per;
    for (int32_t c = inGroup; c < alongK * alongMN; c += kWarpgroupThreads) {
      int32_t i = c / alongK, j = c % alongK;
      int64_t addr = kMajor ? offsetOf(i, j * per) : offsetOf(i * per, j);
      reads.push_back(reinterpret_cast<int64_t>(window) + addr);
    }
  }

  float at(int32_t mn, int32_t k) const {
    int32_t bytes = eltBytes(type);
    int64_t addr = offsetOf(mn, k);
    if (addr < 0 || addr + bytes > windowBytes)
      ctx->refuse(*thread, site,
                  std::string("wgmma reads ") + name + "(" +
                      std::to_string(mn) + ", " + std::to_string(k) +
                      ") at shared offset " + std::to_string(addr) +
                      ", outside the block's " + std::to_string(windowBytes) +
                      " bytes of shared memory");
    return readElt(window + addr, type);
  }
};

} // namespace

void WarpgroupMmaUnit::waitFor(Thread &t, int64_t sequence, int32_t site) {
  int64_t group = ctx.warpgroupKey(t);
  std::pair<int64_t, int64_t> key{group, sequence};
  while (t.block->wgmmaOperands.count(key)) {
    t.waitingFor = "the other threads of its warpgroup to issue the "
                   "warpgroup MMA it waits for (wgmma.mma_async is issued by "
                   "all 128 threads)";
    ctx.spin(t, site);
  }
  t.waitingFor.clear();
  t.wgmmaRetired = std::max(t.wgmmaRetired, sequence);
  // Done: its reads of shared memory (and its warpgroup's earlier ones),
  // known to this thread; to the others once they wait or pass a barrier.
  auto &reads = t.block->wgmmaReads;
  for (auto it = reads.lower_bound({group, 0}); it != reads.end() &&
                                                it->first.first == group &&
                                                it->first.second <= sequence;) {
    for (int64_t chunk : it->second) {
      auto found = t.block->wgmmaReadChunks.find(chunk);
      if (found == t.block->wgmmaReadChunks.end())
        continue;
      t.block->wgmmaRetiredChunks[chunk] = {found->second.first, group,
                                            it->first.second};
      if (--found->second.second == 0)
        t.block->wgmmaReadChunks.erase(found);
    }
    it = reads.erase(it);
  }
}

void WarpgroupMmaUnit::publishRetirement(const Thread &t, MBarrier &b) const {
  auto keep = [&](int64_t group, int64_t sequence) {
    auto [it, added] = b.releasing.try_emplace(group, sequence);
    if (!added)
      it->second = std::max(it->second, sequence);
  };
  if (t.wgmmaRetired >= 0)
    keep(ctx.warpgroupKey(t), t.wgmmaRetired);
  // The reads of its bulk tensor stores its own waits retired, under its
  // key (TmaStore.cpp): a later write by a thread that learns it is safe.
  if (t.bulkRetired >= 0)
    keep(ctx.bulkKey(t), t.bulkRetired);
  for (auto [group, sequence] : t.wgmmaLearned)
    keep(group, sequence);
}

void WarpgroupMmaUnit::learnRetirement(Thread &t, const MBarrier &b) {
  for (auto [group, sequence] : b.released) {
    auto [it, added] = t.wgmmaLearned.try_emplace(group, sequence);
    if (!added)
      it->second = std::max(it->second, sequence);
  }
}

void WarpgroupMmaUnit::checkOperandWrite(Thread &t, int64_t addr, int64_t bytes,
                                         int32_t site, const char *what,
                                         bool byThread, Block *target) {
  Block &b = target ? *target : *t.block;
  auto &chunks = b.wgmmaReadChunks;
  auto &retired = b.wgmmaRetiredChunks;
  std::string of = &b == t.block ? "" : " of " + ctx.describe(b);
  // The write at `chunk` falls under the reads of the MMA at `mmaSite`.
  auto refuse = [&](int64_t chunk, int32_t mmaSite, const char *why) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": " + ctx.location(site) + " " + what +
               " shared memory (workgroup byte " +
               std::to_string(chunk - reinterpret_cast<int64_t>(b.shared)) +
               of + ") that the warpgroup MMA at " + ctx.location(mmaSite) +
               why);
  };
  for (int64_t chunk = addr & ~int64_t(15); chunk < addr + bytes; chunk += 16) {
    auto found = chunks.find(chunk);
    if (found == chunks.end()) {
      // Retired, but not known to this thread: not by its own wait, and no
      // barrier since.
      auto done = byThread ? retired.find(chunk) : retired.end();
      if (done == retired.end() ||
          (done->second.warpgroup == ctx.warpgroupKey(t) &&
           t.wgmmaRetired >= done->second.sequence))
        continue;
      auto learned = t.wgmmaLearned.find(done->second.warpgroup);
      if (learned != t.wgmmaLearned.end() &&
          learned->second >= done->second.sequence)
        continue;
      refuse(chunk, done->second.site,
             " reads: another thread's wait retired its group, but nothing "
             "orders this write after that wait (its own wgmma.wait_group, "
             "or a barrier after the wait)");
      return;
    }
    refuse(chunk, found->second.first,
           " reads while its group is in flight (wgmma.wait_group first)");
    return;
  }
}

void WarpgroupMmaUnit::issueMma(Thread &t, int32_t site, int64_t descA,
                                int64_t descB, int32_t kind, int32_t n,
                                int32_t flags, int64_t acc) {
  if (!t.wgmmaFenced)
    ctx.refuse(t, site,
               "wgmma.mma_async without a wgmma.fence since the thread's "
               "last wgmma.wait_group: its accumulator registers are not "
               "fenced");
  if (ctx.config->warpSize != 32 || ctx.blockThreads % kWarpgroupThreads != 0)
    ctx.refuse(t, site,
               "wgmma needs whole warpgroups (4 warps of 32 lanes); the "
               "block has " +
                   std::to_string(ctx.blockThreads) + " threads");
  Elt in;
  int32_t k;
  switch (kind) {
  case EXT_EMU_WGMMA_F16_F32:
    in = Elt::F16, k = 16;
    break;
  case EXT_EMU_WGMMA_BF16_F32:
    in = Elt::BF16, k = 16;
    break;
  case EXT_EMU_WGMMA_TF32_F32:
    in = Elt::TF32, k = 8;
    break;
  default:
    ctx.refuse(t, site, "unknown warpgroup MMA kind " + std::to_string(kind));
  }
  if (n < 8 || n > 256 || n % 8)
    ctx.refuse(t, site,
               "wgmma with N = " + std::to_string(n) +
                   " (N is a multiple of 8 up to 256)");
  Descriptor a = decode(descA), b = decode(descB);
  for (const Descriptor *d : {&a, &b})
    if (d->baseOffset)
      ctx.refuse(t, site,
                 "wgmma matrix descriptor with a nonzero base offset (a "
                 "swizzle pattern not aligned to its repeat) is not "
                 "modeled by the CPU emulation");
  int64_t windowBytes = sharedWindowBytes(*ctx.params);
  Operand opA{a,           !(flags & EXT_EMU_WGMMA_TRANS_A),
              in,          t.block->shared,
              windowBytes, site,
              "A",         &ctx,
              &t};
  Operand opB{b,           !(flags & EXT_EMU_WGMMA_TRANS_B),
              in,          t.block->shared,
              windowBytes, site,
              "B",         &ctx,
              &t};
  float signs = ((flags & EXT_EMU_WGMMA_NEGATE_A) ? -1.0f : 1.0f) *
                ((flags & EXT_EMU_WGMMA_NEGATE_B) ? -1.0f : 1.0f);

  // The warpgroup's threads issue the MMA together: its operands are read
  // once, when the first of them issues it (a later write to shared memory
  // by a thread that ran ahead does not change what the others multiply).
  int32_t inGroup = int32_t(t.linear % kWarpgroupThreads);
  std::pair<int64_t, int64_t> key{ctx.warpgroupKey(t), t.wgmmaSequence++};
  auto [entry, first] = t.block->wgmmaOperands.try_emplace(key);
  Block::WgmmaOperands &ops = entry->second;
  if (first) {
    ops.descA = descA, ops.descB = descB, ops.kind = kind, ops.n = n;
    ops.flags = flags, ops.site = site;
    ops.a.resize(size_t(64) * k);
    ops.b.resize(size_t(n) * k);
    for (int32_t r = 0; r < 64; ++r)
      for (int32_t kk = 0; kk < k; ++kk)
        ops.a[size_t(r) * k + kk] = opA.at(r, kk);
    for (int32_t c = 0; c < n; ++c)
      for (int32_t kk = 0; kk < k; ++kk)
        ops.b[size_t(c) * k + kk] = opB.at(c, kk);
    // What it reads stays read until the warpgroup waits for it.
    std::vector<int64_t> &chunks = t.block->wgmmaReads[key];
    for (int32_t g = 0; g < kWarpgroupThreads; ++g) {
      opA.collectReads(chunks, g, 64, k);
      opB.collectReads(chunks, g, n, k);
    }
    for (int64_t chunk : chunks) {
      auto &[firstSite, count] = t.block->wgmmaReadChunks[chunk];
      if (count++ == 0)
        firstSite = site;
    }
  } else if (ops.descA != descA || ops.descB != descB || ops.kind != kind ||
             ops.n != n || ops.flags != flags) {
    ctx.refuse(t, site,
               "wgmma.mma_async is one operation of the warpgroup, but this "
               "thread's differs from the one its warpgroup issued at " +
                   ctx.location(ops.site) +
                   " as the same operation (another descriptor, shape or "
                   "mode): its threads must issue the same MMAs in the same "
                   "order");
  }

  // PTX ISA "Matrix Fragments for wgmma.mma_async.m64nNk*", accumulator D:
  // warp w of the warpgroup holds rows 16w + lane/4 (+8), register i
  // column 8*(i/4) + 2*(lane%4) + i%2, rows +8 for i%4 >= 2.
  int32_t warp = inGroup / 32, lane = inGroup % 32;
  auto *d = reinterpret_cast<float *>(acc);
  for (int32_t i = 0; i < n / 2; ++i) {
    int32_t row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    int32_t col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    // Products of f16, bf16 and tf32 values are exact in f32; the sum is
    // kept in f32, in k order (the hardware's order is unspecified).
    float sum = (flags & EXT_EMU_WGMMA_ACCUMULATE) ? d[i] : 0.0f;
    for (int32_t kk = 0; kk < k; ++kk)
      sum += signs * ops.a[size_t(row) * k + kk] * ops.b[size_t(col) * k + kk];
    d[i] = sum;
  }
  if (++ops.taken == kWarpgroupThreads)
    t.block->wgmmaOperands.erase(entry);
  // The race detector sees the reads at issue (a write no barrier orders
  // before the MMA races with them); the group's completion, which every
  // thread of the warpgroup waits for, orders them before what follows.
  std::vector<int64_t> reads;
  opA.collectReads(reads, inGroup, 64, k);
  opB.collectReads(reads, inGroup, n, k);
  for (int64_t addr : reads)
    ctx.recordAccess(t, addr, 16,
                     EXT_EMU_WORKGROUP | EXT_EMU_LOAD | EXT_EMU_UNRECORDED_READ,
                     site);
  t.wgmmaOpen.sites.push_back(site);
  t.wgmmaOpen.lastSequence = key.second;
  ++t.wgmmaIssued;
}

void WarpgroupMmaUnit::fenceMmas(Thread &t) { t.wgmmaFenced = true; }

void WarpgroupMmaUnit::commitMmas(Thread &t) {
  t.wgmmaInFlight.push_back(std::move(t.wgmmaOpen));
  t.wgmmaOpen = Thread::WgmmaGroup();
  t.wgmmaGroups = int32_t(t.wgmmaInFlight.size());
  t.wgmmaIssued = 0;
}

void WarpgroupMmaUnit::waitMmas(Thread &t, int32_t site, int32_t pending) {
  if (pending < 0)
    ctx.refuse(t, site, "wgmma.wait_group with a negative count");
  if (t.wgmmaIssued)
    ctx.refuse(t, site,
               "wgmma.wait_group with wgmma.mma_async operations not "
               "committed (wgmma.commit_group first): they would not be "
               "waited for");
  // The oldest groups retire: their accumulators are readable now. A group
  // is the warpgroup's: it completes once all its threads have issued it.
  int64_t last = -1;
  while (t.wgmmaInFlight.size() > size_t(pending)) {
    last = std::max(last, t.wgmmaInFlight.front().lastSequence);
    t.wgmmaInFlight.pop_front();
  }
  if (last >= 0)
    waitFor(t, last, site);
  t.wgmmaGroups = int32_t(t.wgmmaInFlight.size());
  t.wgmmaFenced = false;
}

void WarpgroupMmaUnit::checkAccumulatorRead(Thread &t, int32_t site,
                                            int32_t producer) {
  // The MMAs whose accumulators are not readable yet: issued (committed or
  // not) and not retired.
  auto inFlight = [&](int32_t mma) {
    auto has = [&](const Thread::WgmmaGroup &g) {
      return mma < 0 ? !g.sites.empty()
                     : std::find(g.sites.begin(), g.sites.end(), mma) !=
                           g.sites.end();
    };
    if (has(t.wgmmaOpen))
      return true;
    for (const Thread::WgmmaGroup &g : t.wgmmaInFlight)
      if (has(g))
        return true;
    return false;
  };
  if (inFlight(producer))
    ctx.refuse(t, site,
               std::string("reads an accumulator register of ") +
                   (producer < 0
                        ? std::string("a warpgroup MMA")
                        : "the warpgroup MMA at " + ctx.location(producer)) +
                   " while its group is in flight: the tensor cores may "
                   "still be writing it (wgmma.wait_group first)");
}

void WarpgroupMmaUnit::setMaxRegisters(Thread &t, int32_t site, int32_t count,
                                       bool increase) {
  const char *action = increase ? "setmaxnreg.inc" : "setmaxnreg.dec";
  std::string what = std::string(action) + " " + std::to_string(count);
  if (count < 24 || count > 256 || count % 8)
    ctx.refuse(t, site,
               what + ": the register count must be a multiple of 8 in "
                      "[24, 256]");
  int64_t group = t.linear / kWarpgroupThreads;
  if ((group + 1) * kWarpgroupThreads > ctx.blockThreads)
    ctx.refuse(t, site,
               what + " in warpgroup " + std::to_string(group) +
                   ", which the block's " + std::to_string(ctx.blockThreads) +
                   " threads leave incomplete: setmaxnreg is executed by "
                   "whole warpgroups");
  int64_t index = t.setmaxnregCalls++;
  auto &calls = t.block->setmaxnreg;
  auto [it, first] = calls.try_emplace({group, index}, site, count);
  if (!first && it->second.first != site)
    ctx.refuse(t, site,
               what + ": another thread of warpgroup " + std::to_string(group) +
                   " executed the setmaxnreg at " +
                   ctx.location(it->second.first) +
                   " instead; every thread of a warpgroup executes the same "
                   "setmaxnreg");
  if (!first || index == 0)
    return;
  int32_t previous = calls[{group, index - 1}].second;
  if (increase ? count < previous : count > previous)
    ctx.refuse(
        t, site,
        what + " after the warpgroup's count was set to " +
            std::to_string(previous) + ": ." +
            (increase ? "inc may not lower it" : "dec may not raise it"));
}
