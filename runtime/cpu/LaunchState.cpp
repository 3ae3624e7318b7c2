//===- LaunchState.cpp - what a launch's threads and blocks hold ----------===//
//
// The few methods of the launch's state: what a block and a cluster can
// say of themselves. Apart from the scheduler so that the state depends on
// nothing that runs it.
//
//===----------------------------------------------------------------------===//

#include "LaunchState.h"

#include <cstdlib>

using namespace ext::emu;

Block::~Block() {
  std::free(shared);
  std::free(scratch);
}

bool Block::finished() const { return exited == threadCount; }

bool Cluster::hasReady() const {
  for (const Block *b : blocks)
    if (!b->ready.empty())
      return true;
  return false;
}

bool Cluster::finished() const {
  for (const Block *b : blocks)
    if (!b->finished())
      return false;
  return true;
}

Block *Cluster::pickBlock(Policy policy) {
  if (blocks.size() == 1)
    return current = blocks.front();
  if (current && !current->ready.empty() && !switchBlock)
    return current;
  switchBlock = false;
  // Only the cluster's own state decides (not when the worker came back to
  // it): its blocks' interleaving does not depend on the other clusters.
  if (policy == Policy::Random) {
    std::vector<Block *> candidates;
    for (Block *b : blocks)
      if (!b->ready.empty())
        candidates.push_back(b);
    return current = candidates[size_t(rng() % candidates.size())];
  }
  size_t n = blocks.size(), start = current ? size_t(current->rank) + 1 : 0;
  for (size_t k = 0; k < n; ++k)
    if (!blocks[(start + k) % n]->ready.empty())
      return current = blocks[(start + k) % n];
  return nullptr; // unreachable: Worker::pick asks a cluster with work
}
