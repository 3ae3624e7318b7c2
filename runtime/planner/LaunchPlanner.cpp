//===- LaunchPlanner.cpp - decompositions chosen at launch ----------------===//
//
// CUTLASS plans Stream-K on the host from the runtime problem size; ext's
// kernels over a dynamic extent do the same: their host code computes the
// plan's numbers itself (Decompositions.cpp) and asks this library only for
// `auto`'s choice, which needs the cost model's simulation. It is the code
// ext-apply-schedule runs at compile time (TileWork.cpp, compiled in).
//
// EXT_REPORT_LAUNCH_PLANS=1 in the environment prints each choice to stderr.
//
//===----------------------------------------------------------------------===//

#include "ext/Runtime/LaunchPlannerABI.h"

#include "ext/Model/TileWork.h"

#include <cstdio>
#include <cstdlib>

#define EXT_EXPORT extern "C" __attribute__((visibility("default")))

namespace tw = ext::tilework;

EXT_EXPORT int64_t __ext_choose_decomposition(int64_t tiles, int64_t iters,
                                              int64_t sms,
                                              double partialCost) {
  tw::CostModel cost;
  cost.partialCost = partialCost;
  tw::Prediction prediction;
  int64_t choice = tw::chooseAtLaunch(tiles, iters, sms, cost, &prediction);
  const char *report = std::getenv("EXT_REPORT_LAUNCH_PLANS");
  if (report && *report && *report != '0') {
    if (choice < 0)
      std::fprintf(stderr,
                   "ext: #ext.auto at launch: no candidate for %lld tiles of "
                   "%lld iterations on %lld SMs\n",
                   (long long)tiles, (long long)iters, (long long)sms);
    else
      std::fprintf(stderr,
                   "ext: #ext.auto at launch: %s for %lld tiles of %lld "
                   "iterations on %lld SMs (grid %lld, predicted utilization "
                   "%.3f)\n",
                   tw::kindName(tw::kLaunchCandidates[choice]).data(), (long long)tiles,
                   (long long)iters, (long long)sms,
                   (long long)prediction.grid, prediction.utilization);
  }
  return choice;
}
