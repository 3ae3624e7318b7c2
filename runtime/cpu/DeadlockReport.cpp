//===- DeadlockReport.cpp - why no thread of a cluster can go on ----------===//

#include "DeadlockReport.h"

#include <map>

using namespace ext::emu;

std::string ext::emu::describeDeadlock(const UnitContext &ctx,
                                       const Cluster &c) {
  std::string text = "deadlock: no thread can continue";
  if (ctx.clusterBlocks > 1)
    text += " in cluster " + formatDim(c.id) + " (" +
            std::to_string(c.arrived) + " of " +
            std::to_string(ctx.clusterBlocks * ctx.blockThreads) +
            " threads arrived at its cluster barrier)";
  for (const Block *b : c.blocks) {
    // (kind, site) -> n; kinds: -1 the cluster's barrier, 0 the block's
    // barrier, 1 a warp collective, 1 + id a named barrier.
    std::map<std::pair<int, int32_t>, int64_t> waits;
    for (int64_t i = 0; i < ctx.blockThreads; ++i) {
      const Thread &t = b->threads[i];
      if (t.state == ThreadState::AtBarrier)
        ++waits[{t.barrierId ? 1 + t.barrierId : 0, t.site}];
      else if (t.state == ThreadState::AtWarpSync)
        ++waits[{1, t.site}];
      else if (t.state == ThreadState::AtClusterBarrier)
        ++waits[{-1, t.site}];
    }
    text += "; in block " + formatDim(b->id) + ":";
    bool first = true;
    for (auto &[key, n] : waits) {
      std::string what =
          key.first == -1  ? "cluster barrier (barrier.cluster.wait)"
          : key.first == 0 ? "gpu.barrier"
          : key.first == 1 ? "warp collective"
                           : "named barrier " + std::to_string(key.first - 1);
      text += std::string(first ? " " : ", ") + std::to_string(n) +
              " thread" + (n == 1 ? "" : "s") +
              (n == 1 ? " waits" : " wait") + " at the " + what + " at " +
              ctx.location(key.second);
      first = false;
    }
    if (b->exited)
      text += std::string(first ? " " : ", ") + std::to_string(b->exited) +
              " exited";
  }
  return text;
}
