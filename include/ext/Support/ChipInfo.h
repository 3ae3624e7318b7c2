//===- ChipInfo.h - the one model of a GPU chip ------------------*- C++ -*-===//
//
// Every hardware fact ext's passes, planners and runners use: what a chip
// name means (vendor, SM version, gfx family), how many SMs/CUs fill it, its
// per-block limits (shared memory, threads, registers), the width of its
// warps or waves, its shared-memory banks, and which matrix and copy
// instructions it has. This file is the only place that parses a chip name
// (`sm_NN[a|f]`, `gfxNNN`) or knows such a number; passes read it through
// the module's `#ext.target` (ext/Dialect/Ext/IR/Target.h), the runners
// directly. Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_CHIPINFO_H
#define EXT_SUPPORT_CHIPINFO_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ext {

enum class GpuVendor { Nvidia, Amd };

/// The chip a tool compiles for when it is given none: the NVIDIA default of
/// `ext-gpu-pipeline{target=nvvm}`, of ext-run and of Python.
inline constexpr llvm::StringLiteral kDefaultChip = "sm_80";
/// `ext-gpu-pipeline{target=rocdl}`'s default.
inline constexpr llvm::StringLiteral kDefaultAmdChip = "gfx90a";

struct ChipInfo {
  /// The name as the pipeline takes it: sm_90, sm_90a, gfx942.
  std::string name;
  GpuVendor vendor = GpuVendor::Nvidia;
  /// NVIDIA: NN of sm_NN (0 on AMD); `archSpecific` for the `a` suffix
  /// (sm_90a: features of exactly that chip, such as wgmma).
  unsigned smVersion = 0;
  bool archSpecific = false;
  /// Streaming multiprocessors (NVIDIA) or compute units (AMD) of the
  /// product the chip name usually means (A100: 108, H100/H200 SXM: 132,
  /// MI210: 104, MI300X: 304).
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
  /// The most private (local / scratch) memory one thread may use, spills
  /// and stack frame included. NVIDIA: 512 KB of local memory per thread
  /// (every architecture since sm_20). AMD: a wave's scratch is at most
  /// 8 MB (the 13-bit WAVESIZE field in 1 KB units), split over its lanes.
  uint64_t maxPrivateBytesPerThread = 512 * 1024;
  /// Threads that run in lock step: an NVIDIA warp and an RDNA wave (32), a
  /// CDNA / GCN wave (64).
  unsigned warpSize = 32;

  /// Shared-memory banks: `sharedBanks` banks of `bankBytes` each, served
  /// per phase of a warp; `hasBankModel` is false where ext does not model
  /// the chip's LDS (gfx950, RDNA).
  unsigned sharedBanks = 32;
  unsigned bankBytes = 4;
  bool hasBankModel = true;

  /// Instructions: cp.async (sm_80+), thread block clusters (sm_90+),
  /// mma.sync m16n8k16 / m16n8k8 (sm_80+), wgmma (sm_90a only), MFMA
  /// (CDNA: gfx908, gfx90a, gfx94x, gfx950).
  bool hasAsyncCopy = false;
  bool hasClusters = false;
  bool hasMmaSync = false;
  bool hasWarpgroupMma = false;
  bool hasMfma = false;

  bool isNvidia() const { return vendor == GpuVendor::Nvidia; }
  bool isAmd() const { return vendor == GpuVendor::Amd; }
  /// What the hardware calls a multiprocessor: "SM" or "CU".
  llvm::StringRef multiprocessorName() const {
    return isNvidia() ? "SM" : "CU";
  }
  /// "wave" on AMD, "warp" on NVIDIA.
  llvm::StringRef warpName() const { return isNvidia() ? "warp" : "wave"; }
};

/// The facts for `chip` (sm_NN[a|f] or gfxNNN[...]); std::nullopt for a name
/// that is neither. Chips without their own row take the closest known
/// generation's limits (sm_86 and sm_89 have 99 KB of shared memory per
/// block, sm_75 64 KB, sm_70 96 KB; gfx9 chips have 64 KB of LDS).
std::optional<ChipInfo> lookupChipInfo(llvm::StringRef chip);

/// The message for a name lookupChipInfo refuses, completing "chip 'X' ".
llvm::StringRef unknownChipMessage();

/// `bytes` as "61292 bytes (59.9 KB)" for messages.
std::string formatBytes(uint64_t bytes);

} // namespace ext

#endif // EXT_SUPPORT_CHIPINFO_H
