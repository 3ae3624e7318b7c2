//===- ChipInfo.h - per-chip hardware facts ----------------------*- C++ -*-===//
//
// The hardware facts ext's passes check kernels against (shared memory,
// threads, registers) and plan with (how many SMs/CUs fill the chip), kept
// in one table so a limit is never spelt twice. Numbers are the vendors'
// published limits for the chip as the compiler sees it: per block
// (NVIDIA CTA, AMD workgroup) and per thread.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_GPU_CHIPINFO_H
#define EXT_GPU_CHIPINFO_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ext {

enum class GpuVendor { Nvidia, Amd };

struct ChipInfo {
  /// The name as the pipeline takes it: sm_90, sm_90a, gfx942.
  std::string name;
  GpuVendor vendor = GpuVendor::Nvidia;
  /// Streaming multiprocessors (NVIDIA) or compute units (AMD) of the
  /// product the chip name usually means (A100: 108, H100/H200 SXM: 132,
  /// MI250X GCD / MI210: 104, MI300X: 304).
  unsigned multiprocessors = 0;
  /// Shared memory (LDS) a block may declare statically. NVIDIA: 48 KB; more
  /// needs dynamic shared memory and cudaFuncSetAttribute. AMD: the whole LDS.
  uint64_t staticSharedBytesPerBlock = 0;
  /// The most shared memory one block can have, static and dynamic together.
  uint64_t maxSharedBytesPerBlock = 0;
  unsigned maxThreadsPerBlock = 1024;
  /// Largest block size along x, y, z.
  unsigned maxBlockDim[3] = {1024, 1024, 64};
  /// 32-bit registers one thread can hold before the compiler spills to
  /// local (NVIDIA) or scratch (AMD) memory.
  unsigned maxRegistersPerThread = 255;
  /// Threads that run in lock step: warp (32) or wavefront (64).
  unsigned warpSize = 32;

  bool isNvidia() const { return vendor == GpuVendor::Nvidia; }
  /// What the hardware calls a multiprocessor: "SM" or "CU".
  llvm::StringRef multiprocessorName() const {
    return isNvidia() ? "SM" : "CU";
  }
};

/// The facts for `chip` (sm_NN[a|f] or gfxNNN[...]); std::nullopt for a name
/// that is neither. Chips without their own row take the closest known
/// generation's limits (sm_86 and sm_89 have 99 KB of shared memory per
/// block, sm_75 64 KB, sm_70 96 KB; gfx9 chips have 64 KB of LDS).
std::optional<ChipInfo> lookupChipInfo(llvm::StringRef chip);

/// `bytes` as "61292 bytes (59.9 KB)" for messages.
std::string formatBytes(uint64_t bytes);

} // namespace ext

#endif // EXT_GPU_CHIPINFO_H
