//===- StackPool.h - the fibers' stacks -------------------------*- C++ -*-===//
//
// The stacks the emulated threads' fibers run on: mmap'd, a guard page below
// each, kept for reuse across blocks and launches. Apart from the scheduler
// because they are memory management, not scheduling: the scheduler asks a
// pool for stacks and gives them back, and nothing here knows of blocks or
// workers.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_STACKPOOL_H
#define EXT_RUNTIME_CPU_STACKPOOL_H

#include "LaunchState.h"

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace ext::emu {

/// mmap'd stacks of one usable size with a guard page below each (an
/// overflow faults instead of corrupting a neighbour), kept for reuse: a
/// launch creates a fiber per thread per block, and mmap per fiber would
/// dominate small kernels.
class StackPool {
public:
  explicit StackPool(size_t usable);
  ~StackPool();
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;

  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context &sctx) noexcept;
  size_t usableBytes() const { return usable; }
  /// Unmaps the stacks kept for reuse (those in use stay).
  void releaseFree();

private:
  void unmap(void *base);

  size_t page, usable;
  std::vector<void *> free;
};

/// The allocator handle a fiber copies into its control block; it notes
/// the stack in the thread, so a thread abandoned mid-kernel gives it back.
struct PoolAllocator {
  StackPool *pool;
  Thread *thread;
  boost::context::stack_context allocate() {
    thread->stack = pool->allocate();
    return thread->stack;
  }
  void deallocate(boost::context::stack_context &sctx) noexcept {
    pool->deallocate(sctx);
  }
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_STACKPOOL_H
