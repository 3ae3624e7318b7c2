//===- TensorMap.h - TMA tensor maps on the CPU -----------------*- C++ -*-===//
//
// The tensor maps bulk tensor copies name (cuTensorMapEncodeTiled's
// CUtensorMap), and the checks every bulk tensor copy makes of its map and
// its box in workgroup memory, load or store.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_TENSORMAP_H
#define EXT_RUNTIME_CPU_TENSORMAP_H

#include <cstdint>

namespace ext::emu {

class UnitContext;
struct Thread;

/// A tensor map (nvgpu.tma.create.descriptor, built on the host): sizes,
/// byte strides and the box innermost first, as cuTensorMapEncodeTiled
/// takes them.
struct TensorMap {
  static constexpr uint64_t kMagic = 0x6578742d746d6170; // "ext-tmap"
  uint64_t magic = kMagic;
  const char *base = nullptr;
  int32_t elementBytes = 0, rank = 0, swizzle = 0;
  bool oobNan = false;
  int64_t sizes[5] = {}, strides[5] = {}, box[5] = {};
  int64_t boxBytes() const {
    int64_t n = elementBytes;
    for (int32_t d = 0; d < rank; ++d)
      n *= box[d];
    return n;
  }
};

/// The tensor map at `map` for a bulk tensor copy (`what`) of `t` with
/// `rank` coordinates: a rank other than the map's fails the launch. (Not a
/// map at all is the copy's own check.)
const TensorMap *tensorMapOfRank(const UnitContext &ctx, Thread &t, int64_t map,
                                 int32_t rank, int32_t site, const char *what);

/// Whether `t` may issue a bulk tensor copy of `map` to `box` (a store:
/// from `box`) in its workgroup memory; else the launch fails and `t` is
/// suspended.
bool checkTensorCopyIssue(const UnitContext &ctx, Thread &t,
                          const TensorMap *map, int64_t box, int32_t site,
                          bool store);

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_TENSORMAP_H
