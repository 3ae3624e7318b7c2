//===- Barriers.cpp - where emulated threads wait for each other ----------===//
//
// A thread that reaches a barrier or collective parks until the last one it
// waits for arrives; that one wakes them all, in the launch's thread order.
// Each release is progress (its worker is not livelocked) and orders the
// threads it releases for the race detector and for what they know of
// retired warpgroup MMAs.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"

#include <algorithm>

using namespace ext::emu;

void BarrierUnit::checkWgmmaCommitted(Thread &t, const char *what,
                                      int32_t site) {
  // Committed groups may stay in flight across a barrier (a pipelined
  // k-loop's wait_group 1): what they read stays guarded by the in-flight
  // operand check, their accumulators by the read check.
  if (t.wgmmaIssued)
    ctx.reportError(t, ctx.describe(t) + " reached the " + what + " at " +
                           ctx.location(site) +
                           " with warpgroup MMAs it has not committed "
                           "(wgmma.commit_group, then wgmma.wait_group)");
}

void BarrierUnit::releaseBlockBarrier(Block &b) {
  ++b.barriers;
  ++b.syncs;
  // Every thread now follows every wait before the barrier.
  b.wgmmaRetiredChunks.clear();
  b.bulkRetiredChunks.clear();
  for (int64_t i : *ctx.threadOrder) {
    Thread &t = b.threads[i];
    if (t.state == ThreadState::AtBarrier)
      ctx.wake(t);
  }
  b.atBarrier = 0;
  b.barrierSite = -1;
  RaceDetector::barrierReleased(b.race);
  ctx.madeProgress(b);
}

void BarrierUnit::blockBarrier(Thread &t, int32_t site) {
  Block &b = *t.block;
  copies.maybeLandEarly(t);
  checkWgmmaCommitted(t, "gpu.barrier", site);
  if (b.atBarrier > 0 && b.barrierSite != site) {
    ctx.failLaunch(t, ctx.describe(t) + " reached the gpu.barrier at " +
                          ctx.location(site) +
                          " while other threads of its block wait at the "
                          "gpu.barrier at " +
                          ctx.location(b.barrierSite) +
                          "; every thread of a block must reach the same "
                          "barrier");
    return;
  }
  t.state = ThreadState::AtBarrier;
  t.site = site;
  b.barrierSite = site;
  ++b.atBarrier;
  if (b.exited > 0) {
    const Thread &gone = b.threads[b.firstExited];
    ctx.failLaunch(t, ctx.describe(t) + " waits at the gpu.barrier at " +
                          ctx.location(site) + ", but " + ctx.describe(gone) +
                          " has already exited; every thread of a block "
                          "must reach each barrier");
    return;
  }
  if (b.atBarrier == ctx.blockThreads)
    releaseBlockBarrier(b);
  UnitContext::park(t);
}

void BarrierUnit::namedBarrier(Thread &t, int32_t id, int32_t count,
                               int32_t site) {
  Block &b = *t.block;
  copies.maybeLandEarly(t);
  auto instruction = [&] {
    return ctx.describe(t) + ": bar.sync " + std::to_string(id) + ", " +
           std::to_string(count) + " at " + ctx.location(site);
  };
  if (id < 1 || id > 15 || count < 1 || count % ctx.config->warpSize ||
      count > ctx.blockThreads) {
    ctx.failLaunch(t, instruction() +
                          " (needs a barrier 1 to 15 and a thread count that "
                          "is a multiple of the warp size, at most the "
                          "block's " +
                          std::to_string(ctx.blockThreads) + ")");
    return;
  }
  checkWgmmaCommitted(t, "barrier", site);
  Block::NamedBarrier &nb = b.namedBarriers[id];
  if (!nb.waiting.empty() && nb.count != count) {
    ctx.failLaunch(t, instruction() + " while " +
                          std::to_string(nb.waiting.size()) +
                          " threads wait at barrier " + std::to_string(id) +
                          " for " + std::to_string(nb.count));
    return;
  }
  nb.count = count;
  t.state = ThreadState::AtBarrier;
  t.site = site;
  t.barrierId = id;
  nb.waiting.push_back(&t);
  if (int64_t(nb.waiting.size()) == count) {
    // Each now follows the others' waits: what any of them knew of retired
    // MMAs, all of them know.
    MBarrier knowledge;
    for (Thread *w : nb.waiting)
      wgmma.publishRetirement(*w, knowledge);
    knowledge.released = std::move(knowledge.releasing);
    for (Thread *w : nb.waiting) {
      WarpgroupMmaUnit::learnRetirement(*w, knowledge);
      w->barrierId = 0;
      ctx.wake(*w);
    }
    nb.waiting.clear();
    ++b.syncs;
    RaceDetector::barrierReleased(b.race);
    ctx.madeProgress(b);
  }
  UnitContext::park(t);
}

void BarrierUnit::clusterArrive(Thread &t, bool relaxed, int32_t site) {
  Cluster &cl = *t.block->cluster;
  copies.maybeLandEarly(t);
  if (t.clusterArrived) {
    ctx.failLaunch(t, ctx.describe(t) + ": barrier.cluster.arrive at " +
                          ctx.location(site) +
                          " arrives again before it waited "
                          "(barrier.cluster.wait) for the phase it arrived "
                          "in at " +
                          ctx.location(t.clusterSite) +
                          "; a thread arrives once per phase of the cluster "
                          "barrier");
    return;
  }
  t.clusterArrived = true;
  t.clusterPhase = cl.phase;
  t.clusterSite = site;
  // A release (not .relaxed) passes on what the thread knows, as an
  // mbarrier arrival does.
  if (relaxed)
    ++cl.relaxedArrivals[size_t(t.block->rank)];
  else
    wgmma.publishRetirement(t, cl.knowledge);
  if (++cl.arrived == ctx.clusterBlocks * ctx.blockThreads)
    releaseClusterBarrier(cl);
}

void BarrierUnit::clusterWait(Thread &t, int32_t site) {
  Cluster &cl = *t.block->cluster;
  copies.maybeLandEarly(t);
  if (!t.clusterArrived) {
    ctx.failLaunch(t, ctx.describe(t) + ": barrier.cluster.wait at " +
                          ctx.location(site) +
                          " without a barrier.cluster.arrive before it (since "
                          "its last wait): it would wait for a phase it is "
                          "not part of");
    return;
  }
  if (cl.phase == t.clusterPhase) {
    t.state = ThreadState::AtClusterBarrier;
    t.site = site;
    UnitContext::park(t);
  }
  t.clusterArrived = false;
  WarpgroupMmaUnit::learnRetirement(t, cl.knowledge);
}

void BarrierUnit::releaseClusterBarrier(Cluster &cl) {
  ++cl.phase;
  cl.arrived = 0;
  cl.knowledge.released = std::move(cl.knowledge.releasing);
  cl.knowledge.releasing.clear();
  // Each block whose threads all arrived with release semantics has its
  // accesses before the barrier ordered before every block's after it.
  if (ctx.races) {
    std::vector<std::pair<int64_t, BlockRaceState *>> ordered;
    for (Block *b : cl.blocks)
      if (cl.relaxedArrivals[size_t(b->rank)] == 0)
        ordered.push_back({b->linear, &b->race});
    ctx.races->clusterBarrierReleased(ordered);
  }
  for (Block *b : cl.blocks) {
    cl.relaxedArrivals[size_t(b->rank)] = 0;
    // Every thread of the block passed it: it orders mbarrier inits as a
    // block barrier does.
    ++b->barriers;
    ++b->syncs;
    for (int64_t i : *ctx.threadOrder) {
      Thread &w = b->threads[i];
      if (w.state == ThreadState::AtClusterBarrier)
        ctx.wake(w);
    }
  }
  ctx.madeProgress(*cl.blocks.front());
}

void BarrierUnit::releaseWarp(Block &b, int32_t warpIndex) {
  Warp &w = b.warps[warpIndex];
  int64_t first = int64_t(warpIndex) * ctx.config->warpSize;
  int64_t end =
      std::min<int64_t>(first + ctx.config->warpSize, ctx.blockThreads);
  for (size_t c = 0; c < w.pending.size();) {
    Collective &coll = w.pending[c];
    uint64_t expected = 0;
    for (int64_t i = first; i < end; ++i) {
      const Thread &t = b.threads[i];
      if (t.lane < coll.width && t.state != ThreadState::Done)
        expected |= uint64_t(1) << t.lane;
    }
    if (coll.arrived != expected) {
      ++c;
      continue;
    }
    for (int64_t i = first; i < end; ++i) {
      Thread &t = b.threads[i];
      if (coll.arrived & (uint64_t(1) << t.lane)) {
        t.syncMask = int64_t(coll.arrived);
        ctx.wake(t);
      }
    }
    w.pending.erase(w.pending.begin() + c);
    ctx.madeProgress(b);
  }
}

int64_t BarrierUnit::warpSync(Thread &t, int32_t site, int32_t width) {
  if (t.lane >= width)
    return int64_t(1) << t.lane;
  Block &b = *t.block;
  Warp &w = b.warps[t.warp];
  uint64_t bit = uint64_t(1) << t.lane;
  auto it = std::find_if(w.pending.begin(), w.pending.end(),
                         [&](const Collective &c) {
                           return c.width == width && !(c.arrived & bit);
                         });
  if (it == w.pending.end()) {
    w.pending.push_back({width, site, 0});
    it = w.pending.end() - 1;
  }
  it->arrived |= bit;
  t.state = ThreadState::AtWarpSync;
  t.site = site;
  releaseWarp(b, t.warp);
  UnitContext::park(t);
  return t.syncMask;
}
