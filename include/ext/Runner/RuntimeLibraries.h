//===- RuntimeLibraries.h - the libraries a run loads -----------*- C++ -*-===//
//
// A compiled module calls into run-time libraries: MLIR's runner utilities,
// ext's CPU emulation runtime (runtime/cpu) for gpu kernels on the CPU, and
// ext's CUDA runtime (runtime/cuda), which dlopens the driver. This is where
// they are found (beside ext's libraries, build tree or install) and the one
// place ext's runners load them to reach their host-side control entry
// points.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNNER_RUNTIMELIBRARIES_H
#define EXT_RUNNER_RUNTIMELIBRARIES_H

#include "ext/Runtime/CpuEmulationOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ext::runner {

/// MLIR's runner utilities (printMemref*, ...), loaded into every JIT.
llvm::SmallVector<std::string> getRunnerUtilsLibraries();
/// The paths of ext's CPU emulation and CUDA runtime libraries.
std::string getEmulatorRuntimePath();
std::string getCudaRuntimePath();
/// The launch planner (ext/Runtime/LaunchPlannerABI.h) that host code of
/// kernels planned at launch calls; every run loads it.
std::string getLaunchPlannerPath();

/// The CPU emulation runtime's host-side entry points.
struct EmulatorRuntime {
  void (*setLaunchOptions)(const ExtEmuOptions *) = nullptr;
  void (*returnErrors)(int32_t) = nullptr;
  const char *(*takeError)() = nullptr;
  /// Waits for the launches in flight (asynchronous ones nobody waited for).
  void (*synchronize)() = nullptr;
};

/// Loads the CPU emulation runtime (the copy a JIT given
/// getEmulatorRuntimePath() binds its kernels to) once per process.
llvm::Expected<const EmulatorRuntime &> getEmulatorRuntime();

/// ext's CUDA runtime, loaded with RTLD_GLOBAL (the JIT resolves mgpu*
/// against this very copy, so the driver state it sets up is the one kernels
/// launch through) and initialized on device 0, once per process.
struct CudaRuntime {
  /// Why the library could not be loaded; empty when it was.
  std::string loadError;
  /// Why there is no device to run on (no driver, no device 0); empty when
  /// there is one.
  std::string deviceError;
  /// The device's name and chip (sm_NN).
  std::string deviceName, chip;

  bool isReady() const { return loadError.empty() && deviceError.empty(); }
  /// CUDA driver calls that failed so far.
  int getErrorCount() const;
  /// Prints each launch's time on stderr.
  void reportTimings() const;

  int (*errorCount)() = nullptr;
  void (*timings)() = nullptr;
};
const CudaRuntime &getCudaRuntime();

} // namespace ext::runner

#endif // EXT_RUNNER_RUNTIMELIBRARIES_H
