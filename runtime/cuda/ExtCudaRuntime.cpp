//===- ExtCudaRuntime.cpp - mgpu* entry points on a dlopen'd CUDA driver --===//
//
// The functions upstream's gpu-to-llvm lowering and the gpu.binary /
// gpu.launch_func LLVM translation (SelectObjectAttr) call, implemented on
// the CUDA driver API. The driver (libcuda.so.1, or $EXT_CUDA_DRIVER) is
// loaded with dlopen on first use, so this library builds and loads on
// machines without CUDA; nothing here includes a CUDA header.
//
// Every kernel launch (mgpuLaunchKernel, and mgpuLaunchClusterKernel for
// thread block clusters, through cuLaunchKernelEx) is timed with a pair of
// CUDA events; extCuda* control functions (used by ext-run) initialize the
// driver, describe the device, report the timings and say whether any driver
// call failed.
//
//===----------------------------------------------------------------------===//

#include "ext/Model/Chip.h"

#include <dlfcn.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#define EXT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// The few driver API types and constants used, with the driver's ABI.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;
constexpr CUresult CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 1;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
/// Shared memory a kernel gets without opting in (every chip since sm_20).
constexpr int32_t kDefaultMaxSharedBytes = 48 * 1024;

/// cuLaunchKernelEx's launch configuration and attribute (cuda.h, CUDA 12).
union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned x, y, z;
  } clusterDim;
};
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's CUlaunchAttribute");
static_assert(sizeof(CUlaunchConfig) == 56, "cuda.h's CUlaunchConfig");

struct Driver {
#define EXT_CUDA_FN(name, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  EXT_CUDA_FN(cuInit, unsigned)
  EXT_CUDA_FN(cuDeviceGet, CUdevice *, int)
  EXT_CUDA_FN(cuDeviceGetCount, int *)
  EXT_CUDA_FN(cuDeviceGetAttribute, int *, int, CUdevice)
  EXT_CUDA_FN(cuDeviceGetName, char *, int, CUdevice)
  EXT_CUDA_FN(cuDevicePrimaryCtxRetain, CUcontext *, CUdevice)
  EXT_CUDA_FN(cuCtxSetCurrent, CUcontext)
  EXT_CUDA_FN(cuCtxSynchronize)
  EXT_CUDA_FN(cuModuleLoadData, CUmodule *, const void *)
  EXT_CUDA_FN(cuModuleLoadDataEx, CUmodule *, const void *, unsigned, int *,
              void **)
  EXT_CUDA_FN(cuModuleUnload, CUmodule)
  EXT_CUDA_FN(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
  EXT_CUDA_FN(cuFuncSetAttribute, CUfunction, int, int)
  EXT_CUDA_FN(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned,
              unsigned, unsigned, unsigned, unsigned, CUstream, void **,
              void **)
  // Optional (CUDA 11.8 and later): only cluster launches need it.
  EXT_CUDA_FN(cuLaunchKernelEx, const CUlaunchConfig *, CUfunction, void **,
              void **)
  EXT_CUDA_FN(cuStreamCreate, CUstream *, unsigned)
  EXT_CUDA_FN(cuStreamDestroy, CUstream)
  EXT_CUDA_FN(cuStreamSynchronize, CUstream)
  EXT_CUDA_FN(cuStreamWaitEvent, CUstream, CUevent, unsigned)
  EXT_CUDA_FN(cuEventCreate, CUevent *, unsigned)
  EXT_CUDA_FN(cuEventDestroy, CUevent)
  EXT_CUDA_FN(cuEventRecord, CUevent, CUstream)
  EXT_CUDA_FN(cuEventSynchronize, CUevent)
  EXT_CUDA_FN(cuEventElapsedTime, float *, CUevent, CUevent)
  EXT_CUDA_FN(cuMemAlloc, CUdeviceptr *, size_t)
  EXT_CUDA_FN(cuMemAllocManaged, CUdeviceptr *, size_t, unsigned)
  EXT_CUDA_FN(cuMemFree, CUdeviceptr)
  EXT_CUDA_FN(cuMemcpyAsync, CUdeviceptr, CUdeviceptr, size_t, CUstream)
  EXT_CUDA_FN(cuMemsetD32Async, CUdeviceptr, unsigned, size_t, CUstream)
  EXT_CUDA_FN(cuMemsetD16Async, CUdeviceptr, unsigned short, size_t, CUstream)
  EXT_CUDA_FN(cuMemHostRegister, void *, size_t, unsigned)
  EXT_CUDA_FN(cuMemHostUnregister, void *)
  EXT_CUDA_FN(cuGetErrorName, CUresult, const char **)
  EXT_CUDA_FN(cuGetErrorString, CUresult, const char **)
#undef EXT_CUDA_FN
};

struct Launch {
  std::string kernel;
  unsigned grid[3];
  unsigned block[3];
  bool clustered = false; // launched with a cluster size (cuLaunchKernelEx)
  unsigned cluster[3] = {1, 1, 1};
  float milliseconds;
};

struct State {
  std::mutex mutex;
  bool attempted = false;
  int status = -1; // 0 ready, 1 no driver library, 2 driver/device failure
  std::string message;
  void *library = nullptr;
  Driver cu;
  int deviceOrdinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int errors = 0;
  std::map<CUfunction, std::string> kernelNames;
  std::vector<Launch> launches;
};

State &state() {
  static State s;
  return s;
}

void note(const char *format, ...) {
  std::fprintf(stderr, "ext-cuda-runtime: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
}

std::string describe(CUresult result) {
  State &s = state();
  const char *name = nullptr, *text = nullptr;
  if (s.cu.cuGetErrorName)
    s.cu.cuGetErrorName(result, &name);
  if (s.cu.cuGetErrorString)
    s.cu.cuGetErrorString(result, &text);
  std::string out = name ? name : ("CUresult " + std::to_string(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

/// Reports a failed driver call and counts it; true when `result` is fine.
bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  ++state().errors;
  note("%s failed: %s", call, describe(result).c_str());
  return false;
}
#define CHECK(call) check(call, #call)

int initialize(int ordinal) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.attempted)
    return s.status;
  s.attempted = true;
  s.deviceOrdinal = ordinal;

  const char *path = std::getenv("EXT_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  s.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!s.library) {
    const char *why = dlerror();
    s.status = 1;
    s.message = std::string("the CUDA driver library '") + path +
                "' could not be loaded" + (why ? std::string(": ") + why : "");
    return s.status;
  }
  bool complete = true;
  std::string missing;
  auto load = [&](auto &fn, const char *name, const char *versioned,
                  bool required = true) {
    void *symbol = versioned ? dlsym(s.library, versioned) : nullptr;
    if (!symbol)
      symbol = dlsym(s.library, name);
    if (!symbol && required) {
      complete = false;
      missing += std::string(missing.empty() ? "" : ", ") + name;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(symbol);
  };
  Driver &cu = s.cu;
  load(cu.cuInit, "cuInit", nullptr);
  load(cu.cuDeviceGet, "cuDeviceGet", nullptr);
  load(cu.cuDeviceGetCount, "cuDeviceGetCount", nullptr);
  load(cu.cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr);
  load(cu.cuDeviceGetName, "cuDeviceGetName", nullptr);
  load(cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr);
  load(cu.cuCtxSetCurrent, "cuCtxSetCurrent", nullptr);
  load(cu.cuCtxSynchronize, "cuCtxSynchronize", nullptr);
  load(cu.cuModuleLoadData, "cuModuleLoadData", nullptr);
  load(cu.cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr);
  load(cu.cuModuleUnload, "cuModuleUnload", nullptr);
  load(cu.cuModuleGetFunction, "cuModuleGetFunction", nullptr);
  load(cu.cuFuncSetAttribute, "cuFuncSetAttribute", nullptr);
  load(cu.cuLaunchKernel, "cuLaunchKernel", nullptr);
  // Optional: a driver without it runs everything but cluster launches.
  load(cu.cuLaunchKernelEx, "cuLaunchKernelEx", nullptr, /*required=*/false);
  load(cu.cuStreamCreate, "cuStreamCreate", nullptr);
  load(cu.cuStreamDestroy, "cuStreamDestroy", "cuStreamDestroy_v2");
  load(cu.cuStreamSynchronize, "cuStreamSynchronize", nullptr);
  load(cu.cuStreamWaitEvent, "cuStreamWaitEvent", nullptr);
  load(cu.cuEventCreate, "cuEventCreate", nullptr);
  load(cu.cuEventDestroy, "cuEventDestroy", "cuEventDestroy_v2");
  load(cu.cuEventRecord, "cuEventRecord", nullptr);
  load(cu.cuEventSynchronize, "cuEventSynchronize", nullptr);
  load(cu.cuEventElapsedTime, "cuEventElapsedTime", nullptr);
  load(cu.cuMemAlloc, "cuMemAlloc", "cuMemAlloc_v2");
  load(cu.cuMemAllocManaged, "cuMemAllocManaged", nullptr);
  load(cu.cuMemFree, "cuMemFree", "cuMemFree_v2");
  load(cu.cuMemcpyAsync, "cuMemcpyAsync", nullptr);
  load(cu.cuMemsetD32Async, "cuMemsetD32Async", nullptr);
  load(cu.cuMemsetD16Async, "cuMemsetD16Async", nullptr);
  load(cu.cuMemHostRegister, "cuMemHostRegister", "cuMemHostRegister_v2");
  load(cu.cuMemHostUnregister, "cuMemHostUnregister", nullptr);
  load(cu.cuGetErrorName, "cuGetErrorName", nullptr);
  load(cu.cuGetErrorString, "cuGetErrorString", nullptr);
  if (!complete) {
    s.status = 2;
    s.message = std::string("the CUDA driver '") + path +
                "' lacks entry points: " + missing;
    return s.status;
  }
  auto fail = [&](CUresult result, const char *what) {
    s.status = 2;
    s.message = std::string(what) + " failed: " + describe(result);
    return s.status;
  };
  if (CUresult r = cu.cuInit(0))
    return fail(r, "cuInit");
  int count = 0;
  if (CUresult r = cu.cuDeviceGetCount(&count))
    return fail(r, "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count) {
    s.status = 2;
    s.message = "no CUDA device " + std::to_string(ordinal) + " (the driver sees " +
                std::to_string(count) + ")";
    return s.status;
  }
  if (CUresult r = cu.cuDeviceGet(&s.device, ordinal))
    return fail(r, "cuDeviceGet");
  if (CUresult r = cu.cuDevicePrimaryCtxRetain(&s.context, s.device))
    return fail(r, "cuDevicePrimaryCtxRetain");
  if (CUresult r = cu.cuCtxSetCurrent(s.context))
    return fail(r, "cuCtxSetCurrent");
  s.status = 0;
  return 0;
}

/// Makes the primary context current in the calling thread, initializing
/// on first use (so the library also serves other JIT drivers).
bool ready() {
  State &s = state();
  if (initialize(s.deviceOrdinal) != 0) {
    static bool reported = false;
    if (!reported) {
      reported = true;
      note("cannot run on the GPU: %s", s.message.c_str());
    }
    ++s.errors;
    return false;
  }
  return CHECK(s.cu.cuCtxSetCurrent(s.context));
}

} // namespace

//===----------------------------------------------------------------------===//
// Control API for ext-run.
//===----------------------------------------------------------------------===//

/// Loads the driver and makes device `ordinal`'s primary context current.
/// Returns 0 when ready, 1 when the driver library is missing, 2 when the
/// driver cannot reach a device; `message` receives the reason.
EXT_EXPORT int extCudaInit(int ordinal, char *message, size_t size) {
  int status = initialize(ordinal);
  if (message && size) {
    std::snprintf(message, size, "%s", state().message.c_str());
  }
  return status;
}

/// The device's name and compute capability (after a successful init).
EXT_EXPORT int extCudaDeviceInfo(char *name, size_t size, int *major,
                                 int *minor) {
  State &s = state();
  if (s.status != 0)
    return 1;
  Driver &cu = s.cu;
  if (name && size && !CHECK(cu.cuDeviceGetName(name, int(size), s.device)))
    return 1;
  if (!CHECK(cu.cuDeviceGetAttribute(
          major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.device)) ||
      !CHECK(cu.cuDeviceGetAttribute(
          minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s.device)))
    return 1;
  return 0;
}

/// How many driver calls have failed so far.
EXT_EXPORT int extCudaErrorCount() { return state().errors; }

/// Prints one line per timed kernel launch to stderr.
EXT_EXPORT void extCudaReportTimings() {
  State &s = state();
  for (const Launch &l : s.launches) {
    char cluster[64] = "";
    if (l.clustered)
      std::snprintf(cluster, sizeof(cluster), " cluster (%u, %u, %u)",
                    l.cluster[0], l.cluster[1], l.cluster[2]);
    std::fprintf(stderr,
                 "ext-run: kernel %s grid (%u, %u, %u) block (%u, %u, %u)%s: "
                 "%.3f ms\n",
                 l.kernel.c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0],
                 l.block[1], l.block[2], cluster, l.milliseconds);
  }
}

//===----------------------------------------------------------------------===//
// The mgpu* entry points (signatures as MLIR 22's lowering emits them).
//===----------------------------------------------------------------------===//

EXT_EXPORT void *mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!ready())
    return nullptr;
  CUmodule module = nullptr;
  CHECK(state().cu.cuModuleLoadData(&module, data));
  return module;
}

EXT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!ready())
    return nullptr;
  char log[8192] = {0};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(
                        optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel)))};
  CUmodule module = nullptr;
  if (!CHECK(state().cu.cuModuleLoadDataEx(&module, data, 3, options, values)))
    if (log[0])
      note("PTX JIT log:\n%s", log);
  return module;
}

EXT_EXPORT void mgpuModuleUnload(void *module) {
  if (module && ready())
    CHECK(state().cu.cuModuleUnload(static_cast<CUmodule>(module)));
}

EXT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !ready())
    return nullptr;
  CUfunction function = nullptr;
  if (CHECK(state().cu.cuModuleGetFunction(&function,
                                           static_cast<CUmodule>(module),
                                           name)))
    state().kernelNames[function] = name;
  return function;
}

namespace {
/// A kernel launch as the mgpu*Launch* entry points ask for it.
struct LaunchRequest {
  void *function;
  intptr_t grid[3];
  intptr_t block[3];
  const intptr_t *cluster; // null: no cluster size (plain cuLaunchKernel)
  int32_t smem;
  void *stream;
  void **params;
  void **extra;
};

/// Launches `r` (with cuLaunchKernelEx and a cluster dimension attribute
/// when it has a cluster size, else with cuLaunchKernel), after the kernel's
/// opt-ins: above 48 KB of dynamic shared memory, above 8 CTAs per cluster.
/// Times the launch with a pair of events and records it.
void launchAndRecord(const LaunchRequest &r) {
  State &s = state();
  if (!r.function || !ready()) {
    ++s.errors;
    note("kernel launch skipped: no loaded kernel");
    return;
  }
  Driver &cu = s.cu;
  CUfunction function = static_cast<CUfunction>(r.function);
  CUstream cuStream = static_cast<CUstream>(r.stream);
  unsigned grid[3], block[3], cluster[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    grid[d] = unsigned(r.grid[d]);
    block[d] = unsigned(r.block[d]);
    if (r.cluster)
      cluster[d] = unsigned(r.cluster[d]);
  }
  if (r.cluster && !cu.cuLaunchKernelEx) {
    ++s.errors;
    note("kernel launch skipped: a thread block cluster launch needs "
         "cuLaunchKernelEx, which this CUDA driver lacks (CUDA 11.8 or later)");
    return;
  }
  // A block above 48 KB of (dynamic) shared memory needs the kernel opted
  // in first, up to the chip's per-block limit.
  if (r.smem > kDefaultMaxSharedBytes &&
      !CHECK(cu.cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, r.smem)))
    return;
  // So does a cluster of more than 8 CTAs (up to 16 on sm_90).
  if (r.cluster &&
      uint64_t(cluster[0]) * cluster[1] * cluster[2] > ext::kPortableClusterCtas &&
      !check(cu.cuFuncSetAttribute(
                 function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                 1),
             "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)"))
    return;
  CUevent start = nullptr, stop = nullptr;
  bool timed = CHECK(cu.cuEventCreate(&start, CU_EVENT_DEFAULT)) &&
               CHECK(cu.cuEventCreate(&stop, CU_EVENT_DEFAULT)) &&
               CHECK(cu.cuEventRecord(start, cuStream));
  bool launched;
  if (r.cluster) {
    CUlaunchAttribute attribute;
    std::memset(&attribute, 0, sizeof(attribute));
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster[0];
    attribute.value.clusterDim.y = cluster[1];
    attribute.value.clusterDim.z = cluster[2];
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = block[0];
    config.blockDimY = block[1];
    config.blockDimZ = block[2];
    config.sharedMemBytes = unsigned(r.smem);
    config.hStream = cuStream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    launched = check(cu.cuLaunchKernelEx(&config, function, r.params, r.extra),
                     "cuLaunchKernelEx");
  } else {
    launched = check(cu.cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                       block[0], block[1], block[2],
                                       unsigned(r.smem), cuStream, r.params,
                                       r.extra),
                     "cuLaunchKernel");
  }
  if (timed && launched && CHECK(cu.cuEventRecord(stop, cuStream)) &&
      CHECK(cu.cuEventSynchronize(stop))) {
    Launch launch;
    auto name = s.kernelNames.find(function);
    launch.kernel =
        name != s.kernelNames.end() ? name->second : std::string("<unknown>");
    std::memcpy(launch.grid, grid, sizeof(grid));
    std::memcpy(launch.block, block, sizeof(block));
    launch.clustered = r.cluster != nullptr;
    std::memcpy(launch.cluster, cluster, sizeof(cluster));
    launch.milliseconds = 0;
    CHECK(cu.cuEventElapsedTime(&launch.milliseconds, start, stop));
    s.launches.push_back(launch);
  }
  if (start)
    CHECK(cu.cuEventDestroy(start));
  if (stop)
    CHECK(cu.cuEventDestroy(stop));
}
} // namespace

EXT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, void *stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  launchAndRecord({function,
                   {gridX, gridY, gridZ},
                   {blockX, blockY, blockZ},
                   nullptr,
                   smem,
                   stream,
                   params,
                   extra});
}

/// A launch with thread block clusters: what MLIR 22's gpu.launch_func
/// translation (SelectObjectAttr) calls for a launch with `clusters in`,
/// declared there as (ptr, i64 x 9, i32, ptr, ptr, ptr): the cluster size
/// comes first, and, unlike mgpuLaunchKernel, no parameter count follows.
EXT_EXPORT void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                                        intptr_t clusterY, intptr_t clusterZ,
                                        intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX,
                                        intptr_t blockY, intptr_t blockZ,
                                        int32_t smem, void *stream,
                                        void **params, void **extra) {
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
  launchAndRecord({function,
                   {gridX, gridY, gridZ},
                   {blockX, blockY, blockZ},
                   cluster,
                   smem,
                   stream,
                   params,
                   extra});
}

EXT_EXPORT void *mgpuStreamCreate() {
  if (!ready())
    return nullptr;
  CUstream stream = nullptr;
  CHECK(state().cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

EXT_EXPORT void mgpuStreamDestroy(void *stream) {
  if (stream && ready())
    CHECK(state().cu.cuStreamDestroy(static_cast<CUstream>(stream)));
}

EXT_EXPORT void mgpuStreamSynchronize(void *stream) {
  if (ready())
    CHECK(state().cu.cuStreamSynchronize(static_cast<CUstream>(stream)));
}

EXT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  if (ready())
    CHECK(state().cu.cuStreamWaitEvent(static_cast<CUstream>(stream),
                                       static_cast<CUevent>(event), 0));
}

EXT_EXPORT void *mgpuEventCreate() {
  if (!ready())
    return nullptr;
  CUevent event = nullptr;
  CHECK(state().cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

EXT_EXPORT void mgpuEventDestroy(void *event) {
  if (event && ready())
    CHECK(state().cu.cuEventDestroy(static_cast<CUevent>(event)));
}

EXT_EXPORT void mgpuEventSynchronize(void *event) {
  if (ready())
    CHECK(state().cu.cuEventSynchronize(static_cast<CUevent>(event)));
}

EXT_EXPORT void mgpuEventRecord(void *event, void *stream) {
  if (ready())
    CHECK(state().cu.cuEventRecord(static_cast<CUevent>(event),
                                   static_cast<CUstream>(stream)));
}

EXT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                              bool isHostShared) {
  if (!ready())
    return nullptr;
  CUdeviceptr ptr = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    CHECK(state().cu.cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    CHECK(state().cu.cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(ptr);
}

EXT_EXPORT void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (ptr && ready())
    CHECK(state().cu.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

EXT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  if (sizeBytes && ready())
    CHECK(state().cu.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                   reinterpret_cast<CUdeviceptr>(src),
                                   sizeBytes, static_cast<CUstream>(stream)));
}

EXT_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                             void *stream) {
  if (count && ready())
    CHECK(state().cu.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                      value, count,
                                      static_cast<CUstream>(stream)));
}

EXT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  if (count && ready())
    CHECK(state().cu.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                      value, count,
                                      static_cast<CUstream>(stream)));
}

EXT_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  if (!ready())
    return;
  CUresult r = state().cu.cuMemHostRegister(ptr, sizeBytes, 0);
  if (r != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    check(r, "cuMemHostRegister");
}

EXT_EXPORT void mgpuMemHostUnregister(void *ptr) {
  if (!ready())
    return;
  CUresult r = state().cu.cuMemHostUnregister(ptr);
  if (r != CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    check(r, "cuMemHostUnregister");
}

namespace {
/// The head of MLIR's ranked memref descriptor.
struct MemRefHead {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[1];
};
} // namespace

EXT_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, MemRefHead *descriptor,
                                          int64_t elementSizeBytes) {
  int64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements *= descriptor->sizes[i];
  mgpuMemHostRegister(descriptor->aligned +
                          descriptor->offset * elementSizeBytes,
                      uint64_t(elements * elementSizeBytes));
}

EXT_EXPORT void mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                                            MemRefHead *descriptor,
                                            int64_t elementSizeBytes) {
  mgpuMemHostUnregister(descriptor->aligned +
                        descriptor->offset * elementSizeBytes);
}

EXT_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  state().deviceOrdinal = device;
}
