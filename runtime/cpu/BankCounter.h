//===- BankCounter.h - shared-memory wavefronts, measured -------*- C++ -*-===//
//
// `ext-run --bank-conflicts` (EXT_EMU_BANK_CONFLICTS=1): every workgroup
// access a lane makes is one lane of a warp-wide request. The n-th execution
// of a site by each lane of a warp forms one request (lanes meet a site in
// program order, as the hardware issues it; lanes that do not reach it are
// inactive). When a block finishes, each of its requests is costed with the
// static analysis' model (ext/Model/BankConflicts.h: 32 banks x 4 B,
// phases of 32/16/8 lanes for 4/8/16-byte accesses, NVIDIA's warp of 32),
// and the launch reports, per site and for the kernel, requests, wavefronts
// and the conflict ratio (wavefronts over the phases a conflict-free request
// takes: 1.0 is conflict-free) — what Nsight Compute reports as shared-memory
// wavefronts and bank conflicts.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_BANKCOUNTER_H
#define EXT_RUNTIME_CPU_BANKCOUNTER_H

#include "ext/Model/BankConflicts.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ext::emu {

class BankCounter {
public:
  explicit BankCounter(int64_t blockThreads) : blockThreads(blockThreads) {}

  /// Thread `thread` (linear in its block) of block `block` accesses `bytes`
  /// bytes at `offset` into the block's workgroup memory at `site`.
  void record(int64_t block, int64_t thread, int32_t site, int64_t offset,
              int64_t bytes);
  /// Costs the requests of finished block `block` and forgets them.
  void flushBlock(int64_t block);
  /// Adds what `other` costed (another worker's blocks of the launch).
  void merge(const BankCounter &other);
  /// Per site (named by `sites`) and for the kernel; empty when no
  /// workgroup access ran.
  std::string report(const std::string &kernel,
                     const std::vector<std::string> &sites) const;

private:
  struct Request {
    std::array<int64_t, 32> offset{};
    std::array<bool, 32> active{};
    int64_t bytes = 0;
  };
  struct SiteStats {
    uint64_t requests = 0, wavefronts = 0, phases = 0;
    unsigned worst = 0;
  };
  int64_t blockThreads;
  bank::BankModel model = bank::BankModel::nvidia();
  /// (block, thread, site) -> executions so far.
  std::map<std::tuple<int64_t, int64_t, int32_t>, uint64_t> executions;
  /// (block, warp, site, execution) -> the lanes' accesses.
  std::map<std::tuple<int64_t, int64_t, int32_t, uint64_t>, Request> pending;
  std::map<int32_t, SiteStats> sites;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_BANKCOUNTER_H
