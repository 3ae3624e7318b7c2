//===- FakeCuda.cpp - a CUDA driver stand-in for ext-run's tests ----------===//
//
// Just enough of the driver API for ext's CUDA runtime library, on the host:
// device memory is malloc'ed, copies are memcpy, events report 0.25 ms. A
// "kernel launch" runs no PTX; it fills every buffer this fake allocated
// that is passed as a kernel parameter (memref descriptors carry the pointer
// twice) with the float 42, so a test sees that the buffers went through
// allocation, upload, the launch's parameters and download. Launches with
// thread block clusters (cuLaunchKernelEx) are checked as the driver checks
// them: an sm_90 device (FAKE_CUDA_CC=90; the fake is 8.0 unless told),
// a cluster that divides the grid, at most 8 CTAs unless the kernel allowed
// non-portable sizes (then 16). Loaded by ext-run and bench/gpu through
// EXT_CUDA_DRIVER; never a real driver's replacement.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include <unistd.h>

#define API extern "C" __attribute__((visibility("default"))) int

namespace {
std::map<void *, size_t> &allocations() {
  static std::map<void *, size_t> a;
  return a;
}
int module, function, context, stream, event;

/// Reads a pointer at `address` without faulting on a bad one (write(2)
/// reports EFAULT instead): the launch does not say how many parameters
/// there are, so slots past the last one may hold anything.
bool safeRead(const void *address, void **out) {
  static int fds[2] = {-1, -1};
  if (fds[0] < 0 && pipe(fds) != 0)
    return false;
  if (write(fds[1], address, sizeof(void *)) != sizeof(void *))
    return false;
  return read(fds[0], out, sizeof(void *)) == sizeof(void *);
}
} // namespace

API cuInit(unsigned) { return 0; }
API cuDeviceGetCount(int *count) {
  *count = std::getenv("FAKE_CUDA_NO_DEVICE") ? 0 : 1;
  return 0;
}
API cuDeviceGet(int *device, int) { *device = 0; return 0; }
/// The compute capability, major * 10 + minor: FAKE_CUDA_CC, else 80.
static int computeCapability() {
  const char *cc = std::getenv("FAKE_CUDA_CC");
  return cc && *cc ? std::atoi(cc) : 80;
}
API cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75   ? computeCapability() / 10
           : attribute == 76 ? computeCapability() % 10
                             : 0;
  return 0;
}
API cuDeviceGetName(char *name, int size, int) {
  std::snprintf(name, size, "Fake CUDA Device");
  return 0;
}
API cuDevicePrimaryCtxRetain(void **ctx, int) { *ctx = &context; return 0; }
API cuCtxSetCurrent(void *) { return 0; }
API cuCtxSynchronize() { return 0; }
API cuModuleLoadData(void **m, const void *) { *m = &module; return 0; }
API cuModuleLoadDataEx(void **m, const void *image, unsigned, int *, void **) {
  // The PTX the JIT would compile must at least be PTX.
  if (!std::strstr(static_cast<const char *>(image), ".entry"))
    return 218; // CUDA_ERROR_INVALID_PTX
  *m = &module;
  return 0;
}
API cuModuleUnload(void *) { return 0; }
API cuModuleGetFunction(void **f, void *, const char *) {
  *f = &function;
  return 0;
}
// As the driver: a launch above 48 KB of dynamic shared memory fails unless
// the kernel was opted in to at least that much.
static int maxDynamicShared = 48 * 1024;
// So does a cluster of more than 8 CTAs unless the kernel allowed it.
static bool nonPortableClusters = false;
API cuFuncSetAttribute(void *, int attribute, int value) {
  if (attribute == 14) { // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    if (computeCapability() < 90 || (value != 0 && value != 1))
      return 1;
    if (value && !nonPortableClusters)
      std::fprintf(stderr, "fake-cuda: non-portable cluster sizes allowed\n");
    nonPortableClusters = value;
    return 0;
  }
  if (attribute != 8) // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    return 1;
  if (value > 227 * 1024)
    return 1; // CUDA_ERROR_INVALID_VALUE
  std::fprintf(stderr, "fake-cuda: max dynamic shared memory %d bytes\n",
               value);
  maxDynamicShared = value;
  return 0;
}
/// The "kernel": 42 into every buffer of the fake passed as a parameter.
static int runKernel(unsigned smem, void **params) {
  if (int(smem) > maxDynamicShared)
    return 1; // CUDA_ERROR_INVALID_VALUE

  // The parameter count is not passed; look at the first few slots.
  for (int i = 0; i < 64 && params; ++i) {
    void *slot = nullptr, *value = nullptr;
    if (!safeRead(&params[i], &slot) || !slot || !safeRead(slot, &value))
      break;
    auto it = allocations().find(value);
    if (it == allocations().end())
      continue;
    float *data = static_cast<float *>(it->first);
    for (size_t k = 0; k < it->second / sizeof(float); ++k)
      data[k] = 42.0f;
  }
  return 0;
}
API cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned smem, void *, void **params, void **) {
  return runKernel(smem, params);
}

// cuLaunchKernelEx's configuration (cuda.h, CUDA 12): attributes of 72
// bytes, an id then a 64-byte value at offset 8.
namespace {
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned grid[3], block[3], sharedMemBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchAttribute) == 72 && sizeof(LaunchConfig) == 56,
              "cuda.h's CUlaunchAttribute and CUlaunchConfig");
} // namespace

API cuLaunchKernelEx(const LaunchConfig *config, void *, void **params,
                     void **) {
  constexpr int kInvalidValue = 1, kNotSupported = 801, kInvalidCluster = 912;
  if (!config || (config->numAttrs && !config->attrs))
    return kInvalidValue;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const LaunchAttribute &a = config->attrs[i];
    if (a.id != 4) // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, the only one known
      return kInvalidValue;
    unsigned cluster[3] = {a.value.clusterDim.x, a.value.clusterDim.y,
                           a.value.clusterDim.z};
    if (computeCapability() < 90)
      return kNotSupported;
    for (int d = 0; d < 3; ++d)
      if (cluster[d] == 0 || config->grid[d] % cluster[d] != 0)
        return kInvalidCluster;
    unsigned size = cluster[0] * cluster[1] * cluster[2];
    if (size > (nonPortableClusters ? 16u : 8u))
      return kInvalidCluster;
    // Once per cluster and grid: the timed replays launch them many times.
    static std::set<std::tuple<unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned>>
        seen;
    if (seen.insert({cluster[0], cluster[1], cluster[2], config->grid[0],
                     config->grid[1], config->grid[2]})
            .second)
      std::fprintf(stderr,
                   "fake-cuda: cluster (%u, %u, %u) of grid (%u, %u, %u)\n",
                   cluster[0], cluster[1], cluster[2], config->grid[0],
                   config->grid[1], config->grid[2]);
  }
  return runKernel(config->sharedMemBytes, params);
}
API cuStreamCreate(void **s, unsigned) { *s = &stream; return 0; }
API cuStreamDestroy_v2(void *) { return 0; }
API cuStreamSynchronize(void *) { return 0; }
API cuStreamWaitEvent(void *, void *, unsigned) { return 0; }
API cuEventCreate(void **e, unsigned) { *e = &event; return 0; }
API cuEventDestroy_v2(void *) { return 0; }
API cuEventRecord(void *, void *) { return 0; }
API cuEventSynchronize(void *) { return 0; }
API cuEventElapsedTime(float *ms, void *, void *) { *ms = 0.25f; return 0; }
API cuMemAlloc_v2(unsigned long long *ptr, size_t size) {
  void *p = std::calloc(1, size);
  allocations()[p] = size;
  *ptr = reinterpret_cast<unsigned long long>(p);
  return 0;
}
API cuMemAllocManaged(unsigned long long *ptr, size_t size, unsigned) {
  return cuMemAlloc_v2(ptr, size);
}
API cuMemFree_v2(unsigned long long ptr) {
  void *p = reinterpret_cast<void *>(ptr);
  if (!allocations().erase(p))
    return 1; // CUDA_ERROR_INVALID_VALUE
  std::free(p);
  return 0;
}
API cuMemcpyAsync(unsigned long long dst, unsigned long long src, size_t size,
                  void *) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
              size);
  return 0;
}
API cuMemsetD32Async(unsigned long long, unsigned, size_t, void *) { return 0; }
// A tensor map the fake never reads: its 128 bytes, with the rank and box
// checked as the real encoder checks them.
API cuTensorMapEncodeTiled(void *map, int, unsigned rank, void *address,
                           const unsigned long long *, const unsigned long long *,
                           const unsigned *box, const unsigned *, int, int, int,
                           int) {
  if (rank < 1 || rank > 5 || !address ||
      reinterpret_cast<unsigned long long>(address) % 16)
    return 1; // CUDA_ERROR_INVALID_VALUE
  for (unsigned d = 0; d < rank; ++d)
    if (box[d] < 1 || box[d] > 256)
      return 1;
  std::memset(map, 0, 128);
  return 0;
}
API cuMemsetD16Async(unsigned long long, unsigned short, size_t, void *) {
  return 0;
}
API cuMemHostRegister_v2(void *, size_t, unsigned) { return 0; }
API cuMemHostUnregister(void *) { return 0; }
API cuGetErrorName(int error, const char **name) {
  *name = error == 218   ? "CUDA_ERROR_INVALID_PTX"
          : error == 801 ? "CUDA_ERROR_NOT_SUPPORTED"
          : error == 912 ? "CUDA_ERROR_INVALID_CLUSTER_SIZE"
                         : "CUDA_ERROR_FAKE";
  return 0;
}
API cuGetErrorString(int, const char **text) {
  *text = "reported by the fake driver";
  return 0;
}
