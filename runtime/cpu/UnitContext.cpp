//===- UnitContext.cpp - what an emulator unit asks of its launch ---------===//

#include "UnitContext.h"

#include <cstdio>

using namespace ext::emu;

std::string ext::emu::formatHex(int64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", (unsigned long long)v);
  return text;
}

const std::string &UnitContext::location(int32_t index) const {
  static const std::string unknown = "<unknown location>";
  if (index < 0 || size_t(index) >= params->sites.size())
    return unknown;
  return params->sites[index];
}

std::string UnitContext::describe(const Thread &t) const {
  return "thread " + formatDim(t.id) + " of " + describe(*t.block);
}

std::string UnitContext::describe(const Block &b) const {
  std::string text = "block " + formatDim(b.id);
  if (clusterBlocks > 1)
    text += " (rank " + std::to_string(b.rank) + " of cluster " +
            formatDim(b.cluster->id) + ")";
  return text;
}

int64_t UnitContext::warpgroupKey(const Thread &t) const {
  return t.block->rank *
             ((blockThreads + kWarpgroupThreads - 1) / kWarpgroupThreads) +
         t.linear / kWarpgroupThreads;
}

void UnitContext::failMisaligned(Thread &t, int64_t bytes, const char *what,
                                 int32_t site,
                                 const std::string &detail) const {
  failLaunch(t, describe(t) + ": the " + std::to_string(bytes) + "-byte " +
                    what + " at " + location(site) + " is misaligned (" +
                    detail + ")");
}

void UnitContext::park(Thread &t) {
  t.scheduler = std::move(t.scheduler).resume();
}

void UnitContext::refuse(Thread &t, int32_t site, std::string message) const {
  std::string text = describe(t) + ": " + location(site) + ": " + message;
  // `t` is never resumed: what its frames hold is not freed by unwinding.
  message = std::string();
  failLaunch(t, std::move(text));
  __builtin_unreachable();
}
