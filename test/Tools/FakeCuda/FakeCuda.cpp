//===- FakeCuda.cpp - a CUDA driver stand-in for ext-run's tests ----------===//
//
// Just enough of the driver API for ext's CUDA runtime library, on the host:
// device memory is malloc'ed, copies are memcpy, events report 0.25 ms. A
// "kernel launch" runs no PTX; it fills every buffer this fake allocated
// that is passed as a kernel parameter (memref descriptors carry the pointer
// twice) with the float 42, so a test sees that the buffers went through
// allocation, upload, the launch's parameters and download. Loaded by
// ext-run through EXT_CUDA_DRIVER; never a real driver's replacement.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

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
API cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75 ? 8 : 0; // compute capability 8.0
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
API cuFuncSetAttribute(void *, int attribute, int value) {
  if (attribute != 8) // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    return 1;
  if (value > 227 * 1024)
    return 1; // CUDA_ERROR_INVALID_VALUE
  std::fprintf(stderr, "fake-cuda: max dynamic shared memory %d bytes\n",
               value);
  maxDynamicShared = value;
  return 0;
}
API cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned smem, void *, void **params, void **) {
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
  *name = error == 218 ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_FAKE";
  return 0;
}
API cuGetErrorString(int, const char **text) {
  *text = "reported by the fake driver";
  return 0;
}
