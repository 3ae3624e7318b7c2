//===- TensorMap.cpp - TMA tensor maps on the CPU -------------------------===//

#include "TensorMap.h"
#include "UnitContext.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include <string>

using namespace ext::emu;

const TensorMap *ext::emu::tensorMapOfRank(const UnitContext &ctx, Thread &t,
                                           int64_t map, int32_t rank,
                                           int32_t site, const char *what) {
  const auto *m = reinterpret_cast<const TensorMap *>(map);
  if (m && m->magic == TensorMap::kMagic && rank != m->rank)
    ctx.refuse(t, site,
               std::string(what) + " with " + std::to_string(rank) +
                   " coordinates on a rank-" + std::to_string(m->rank) +
                   " tensor map");
  return m;
}

bool ext::emu::checkTensorCopyIssue(const UnitContext &ctx, Thread &t,
                                    const TensorMap *map, int64_t box,
                                    int32_t site, bool store) {
  if (!map || map->magic != TensorMap::kMagic) {
    ctx.failLaunch(t, ctx.describe(t) + ": cp.async.bulk.tensor at " +
                          ctx.location(site) + " with " +
                          formatHex(reinterpret_cast<int64_t>(map)) +
                          ", which is not a tensor map "
                          "nvgpu.tma.create.descriptor made");
    return false;
  }
  int64_t offset = box - reinterpret_cast<int64_t>(t.block->shared);
  int64_t window = sharedWindowBytes(*ctx.params);
  int64_t bytes = map->boxBytes();
  // PTX: the destination is 128-byte aligned. (The swizzle follows the
  // address bits, so a box off its 1024-byte repeat is laid out as the
  // same addresses read back by a wgmma descriptor with a base offset.)
  int64_t alignment = 128;
  if (offset < 0 || offset + bytes > window || offset % alignment) {
    ctx.failLaunch(
        t, ctx.describe(t) + ": cp.async.bulk.tensor at " + ctx.location(site) +
               (store ? " reads " : " writes ") + std::to_string(bytes) +
               (store ? " bytes from workgroup byte "
                      : " bytes at workgroup byte ") +
               std::to_string(offset) + " (needs " + std::to_string(alignment) +
               "-byte alignment and room in the block's " +
               std::to_string(window) + " bytes)");
    return false;
  }
  return true;
}

extern "C" {

int64_t __ext_emu_tensor_map_create(int64_t base, int32_t elementBytes,
                                    int32_t rank, const int64_t *sizes,
                                    const int64_t *strides, const int64_t *box,
                                    int32_t swizzle, int32_t oobNan) {
  // cuTensorMapEncodeTiled's rules, so that what fails on a GPU fails here.
  std::string why;
  if (rank < 1 || rank > 5)
    why = "rank " + std::to_string(rank) + " (1 to 5)";
  else if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 &&
           elementBytes != 8)
    why = "elements of " + std::to_string(elementBytes) + " bytes";
  else if (base % 16)
    why = "a global address not 16-byte aligned";
  else if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    why = "swizzle " + std::to_string(swizzle);
  auto *map = new TensorMap();
  map->base = reinterpret_cast<const char *>(base);
  map->elementBytes = elementBytes;
  map->rank = rank;
  map->swizzle = swizzle;
  map->oobNan = oobNan != 0;
  for (int32_t d = 0; why.empty() && d < rank; ++d) {
    int32_t from = rank - 1 - d; // innermost first
    map->sizes[d] = sizes[from];
    map->strides[d] = strides[from] * elementBytes;
    map->box[d] = box[from];
    if (map->box[d] < 1 || map->box[d] > 256)
      why = "box dimension " + std::to_string(map->box[d]) + " (1 to 256)";
    else if (d > 0 && map->strides[d] % 16)
      why = "a stride of " + std::to_string(map->strides[d]) +
            " bytes (a multiple of 16)";
  }
  if (why.empty() && (map->box[0] * elementBytes) % 16)
    why = "an innermost box of " + std::to_string(map->box[0] * elementBytes) +
          " bytes (a multiple of 16)";
  if (why.empty() && swizzle && map->box[0] * elementBytes > swizzle)
    why = "an innermost box of " + std::to_string(map->box[0] * elementBytes) +
          " bytes under a " + std::to_string(swizzle) +
          "-byte swizzle (at most the swizzle's width)";
  if (!why.empty()) {
    delete map;
    std::string message = "nvgpu.tma.create.descriptor: the tensor map has " +
                          why + ", which cuTensorMapEncodeTiled refuses";
    __ext_emu_host_assert_fail(message.c_str(), /*guarded=*/0);
    return 0;
  }
  // Lives as long as the process, as a CUtensorMap the host keeps.
  return reinterpret_cast<int64_t>(map);
}

} // extern "C"
