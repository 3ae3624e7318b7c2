//===- LaunchPlannerABI.h - host code <-> the launch planner ----*- C++ -*-===//
//
// The contract between the host code `ext-kernel-to-gpu` emits for a kernel
// whose tile count is known only at launch and ext's launch planner
// (runtime/planner, libext_launch_planner.so): plain C, so that the library
// needs no MLIR, and the pass spells the same name. Every runner ext ships
// (ext-run, the Python bindings) loads the library; an ahead-of-time build
// links it.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_LAUNCHPLANNERABI_H
#define EXT_RUNTIME_LAUNCHPLANNERABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `#ext.auto` at launch: the index in ext::tilework::kLaunchCandidates of
/// the decomposition the cost model (ext/Model/TileWork.h) predicts
/// fastest for `tiles` tiles of `iters` iterations on `sms` SMs, a fixup
/// costing `partialCost` iterations; -1 if none can run the problem.
int64_t __ext_choose_decomposition(int64_t tiles, int64_t iters, int64_t sms,
                                   double partialCost);

#ifdef __cplusplus
}
#endif

#define EXT_CHOOSE_DECOMPOSITION_NAME "__ext_choose_decomposition"

#endif // EXT_RUNTIME_LAUNCHPLANNERABI_H
