//===- RuntimeLibraries.cpp - the libraries a run loads -------------------===//
//
// The build-tree paths come from CMake (lib/Runner/CMakeLists.txt); an
// installed ext finds its copies beside its libraries (InstallPaths.h).
//
//===----------------------------------------------------------------------===//

#include "ext/Runner/RuntimeLibraries.h"

#include "ext/Support/InstallPaths.h"

#include <dlfcn.h>

#include <mutex>

using namespace ext::runner;

llvm::SmallVector<std::string> ext::runner::getRunnerUtilsLibraries() {
  // The async runtime runs `async.execute` bodies (the async dialect's
  // lowering calls it); a module without them leaves it unused.
  return {EXT_RUNNER_UTILS_LIB, EXT_C_RUNNER_UTILS_LIB, EXT_ASYNC_RUNTIME_LIB};
}

std::string ext::runner::getEmulatorRuntimePath() {
  return ext::findNextToExtLibraries(EXT_CPU_EMULATION_LIB);
}

std::string ext::runner::getCudaRuntimePath() {
  return ext::findNextToExtLibraries(EXT_CUDA_RUNTIME_LIB);
}

std::string ext::runner::getLaunchPlannerPath() {
  return ext::findNextToExtLibraries(EXT_LAUNCH_PLANNER_LIB);
}

/// Looks `name` up in `library` as a function pointer of type `T`.
template <typename T>
static void lookup(void *library, const char *name, T &function) {
  function = reinterpret_cast<T>(dlsym(library, name));
}

llvm::Expected<const EmulatorRuntime &> ext::runner::getEmulatorRuntime() {
  static EmulatorRuntime runtime;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    // Never closed: the JIT's handle on the same file is this library.
    std::string path = getEmulatorRuntimePath();
    void *library = dlopen(path.c_str(), RTLD_NOW);
    if (!library) {
      error = "cannot load ext's CPU emulation runtime '" + path +
              "': " + dlerror();
      return;
    }
    lookup(library, "__ext_emu_set_launch_options", runtime.setLaunchOptions);
    lookup(library, "__ext_emu_return_errors", runtime.returnErrors);
    lookup(library, "__ext_emu_take_error", runtime.takeError);
    lookup(library, "__ext_emu_synchronize", runtime.synchronize);
    if (!runtime.setLaunchOptions || !runtime.returnErrors ||
        !runtime.takeError || !runtime.synchronize)
      error = "ext's CPU emulation runtime '" + path +
              "' lacks its __ext_emu_* host entry points";
  });
  if (!error.empty())
    return llvm::createStringError(error);
  return runtime;
}

const CudaRuntime &ext::runner::getCudaRuntime() {
  static CudaRuntime runtime;
  static std::once_flag once;
  std::call_once(once, [] {
    CudaRuntime &rt = runtime;
    std::string path = getCudaRuntimePath();
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      rt.loadError = "cannot load ext's CUDA runtime library '" + path +
                     "': " + dlerror();
      return;
    }
    int (*init)(int, char *, size_t) = nullptr;
    int (*deviceInfo)(char *, size_t, int *, int *) = nullptr;
    lookup(library, "extCudaInit", init);
    lookup(library, "extCudaDeviceInfo", deviceInfo);
    lookup(library, "extCudaErrorCount", rt.errorCount);
    lookup(library, "extCudaReportTimings", rt.timings);
    if (!init || !deviceInfo || !rt.errorCount || !rt.timings) {
      rt.loadError =
          "ext's CUDA runtime library lacks its extCuda* entry points";
      return;
    }
    char message[1024] = {0};
    if (init(/*ordinal=*/0, message, sizeof(message)) != 0) {
      rt.deviceError = message;
      return;
    }
    char name[256] = {0};
    int major = 0, minor = 0;
    if (deviceInfo(name, sizeof(name), &major, &minor) == 0) {
      rt.deviceName = name;
      rt.chip = "sm_" + std::to_string(major) + std::to_string(minor);
    }
  });
  return runtime;
}

int CudaRuntime::getErrorCount() const {
  return errorCount ? errorCount() : 0;
}

void CudaRuntime::reportTimings() const {
  if (timings)
    timings();
}
