//===- StackPool.cpp - the fibers' stacks ---------------------------------===//

#include "StackPool.h"

#include <atomic>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

using namespace ext::emu;

namespace {
/// Stacks mapped by all workers' pools. Each is two mappings (its guard
/// page and its stack) and Linux allows 65530 per process: free stacks are
/// kept for reuse only while the total stays below what the default
/// residency needs.
std::atomic<int64_t> mappedStacks{0};
constexpr int64_t kKeptStacks = 16384;
} // namespace

StackPool::StackPool(size_t usable) {
  page = size_t(sysconf(_SC_PAGESIZE));
  this->usable = (usable + page - 1) / page * page;
}

StackPool::~StackPool() {
  for (void *base : free)
    unmap(base);
}

boost::context::stack_context StackPool::allocate() {
  void *base;
  if (!free.empty()) {
    base = free.back();
    free.pop_back();
  } else {
    base = mmap(nullptr, usable + page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      throw std::bad_alloc();
    mprotect(base, page, PROT_NONE);
    mappedStacks.fetch_add(1, std::memory_order_relaxed);
  }
  boost::context::stack_context sctx;
  sctx.size = usable;
  sctx.sp = static_cast<char *>(base) + page + usable;
  return sctx;
}

void StackPool::deallocate(boost::context::stack_context &sctx) noexcept {
  void *base = static_cast<char *>(sctx.sp) - sctx.size - page;
  if (mappedStacks.load(std::memory_order_relaxed) > kKeptStacks)
    unmap(base);
  else
    free.push_back(base);
}

void StackPool::releaseFree() {
  for (void *base : free)
    unmap(base);
  free.clear();
}

void StackPool::unmap(void *base) {
  munmap(base, usable + page);
  mappedStacks.fetch_sub(1, std::memory_order_relaxed);
}
