//===- Chip.h - the one model of a GPU chip ---------------------*- C++ -*-===//
//
// Every fact ext's passes, planners, runtimes and Python use about a chip:
// what a chip name means (vendor, SM version, gfx family), how many SMs/CUs
// fill it, its per-block limits (shared memory, threads, registers,
// clusters), the width of its warps or waves, its shared-memory banks,
// which instructions it has (cp.async, TMA, redux, mma.sync, wgmma, MFMA,
// FP8), and the rates of the product the name usually means (clock, peak,
// bandwidths) that performance models read. This file and Chip.cpp are the
// only places that parse a chip name (`sm_NN[a|f]`, `gfxNNN`) or know such
// a number: one table of NVIDIA generations and one of AMD families. Passes
// read it through the module's `#ext.target` (ext/Dialect/Ext/IR/Target.h),
// the runtimes and Python directly. Plain C++ (LLVM's ADT, no MLIR), in the
// ExtModel library with the matrix instruction table
// (MatrixInstructions.h), the decompositions' arithmetic (TileWork.h) and
// the bank rule (BankConflicts.h).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_MODEL_CHIP_H
#define EXT_MODEL_CHIP_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ext {

enum class GpuVendor { Nvidia, Amd };

/// The chip a tool compiles for when it is given none: the NVIDIA default of
/// `ext-gpu-pipeline{target=nvvm}`, of ext-run, of ext-tune and of Python.
inline constexpr llvm::StringLiteral kDefaultChip = "sm_80";
/// `ext-gpu-pipeline{target=rocdl}`'s default.
inline constexpr llvm::StringLiteral kDefaultAmdChip = "gfx90a";

/// Thread block clusters (sm_90 and later): the CTAs a cluster may have
/// without opting in (the portable size), and with
/// cudaFuncAttributeNonPortableClusterSizeAllowed (H100's limit). Schedules
/// are checked against the portable size, before a chip is known.
inline constexpr unsigned kPortableClusterCtas = 8;
inline constexpr unsigned kNonPortableClusterCtas = 16;

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
  /// 32-bit registers one block may hold in all (NVIDIA: 64K since sm_30),
  /// the pool a warp-specialized CTA's roles divide.
  unsigned registersPerBlock = 65536;
  /// The most private (local / scratch) memory one thread may use, spills
  /// and stack frame included. NVIDIA: 512 KB of local memory per thread
  /// (every architecture since sm_20). AMD: a wave's scratch is at most
  /// 8 MB (the 13-bit WAVESIZE field in 1 KB units), split over its lanes.
  uint64_t maxPrivateBytesPerThread = 512 * 1024;
  /// Threads that run in lock step: an NVIDIA warp and an RDNA wave (32), a
  /// CDNA / GCN wave (64).
  unsigned warpSize = 32;
  /// CTAs one thread block cluster may have (1 without clusters).
  unsigned maxClusterCtas = 1;
  /// NVPTX target features ext-gpu-pipeline adds when given none: "+ptx80"
  /// on sm_90[a], whose TMA and mbarrier transaction-count PTX
  /// (cp.async.bulk.tensor, mbarrier.expect_tx) is PTX ISA 8.0 while LLVM's
  /// default for sm_90 is 7.8 (it would fail to select them). Later chips'
  /// defaults are newer, and 8.0 cannot name them (LLVM aborts); "" else.
  std::string nvptxFeatures;

  /// Shared-memory banks: `sharedBanks` banks of `bankBytes` each, served
  /// per phase of a warp; `hasBankModel` is false where ext does not model
  /// the chip's LDS (gfx950, RDNA).
  unsigned sharedBanks = 32;
  unsigned bankBytes = 4;
  bool hasBankModel = true;

  /// Instructions: cp.async (sm_80+), thread block clusters, the Tensor
  /// Memory Accelerator and mbarrier transaction counts (sm_90+), redux.sync
  /// (sm_80+), mma.sync m16n8k16 / m16n8k8 (sm_80+), FP8 (e4m3/e5m2) matrix
  /// operands (sm_89+), wgmma (sm_90a only), MFMA (CDNA: gfx908, gfx90a,
  /// gfx94x, gfx950).
  bool hasAsyncCopy = false;
  bool hasClusters = false;
  bool hasTma = false;
  bool hasRedux = false;
  bool hasMmaSync = false;
  bool hasFp8 = false;
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

/// The rates and per-multiprocessor limits of a chip's usual product: what
/// performance models read (ChipInfo says what a chip can compile and run;
/// this says how fast). Numbers are datasheet leads; the L2 bandwidth is an
/// assumption a model must state, so it is a field a caller may override.
struct ChipThroughput {
  /// The product the numbers are for ("H200 SXM", "MI300X").
  std::string product;
  /// Boost clock of the multiprocessors, Hz.
  double clockHz = 0;
  /// f32 fused multiply-adds per multiprocessor per clock (CUDA cores; AMD's
  /// non-packed vector ALU).
  unsigned fp32FmaPerClock = 0;
  /// Dense f16 matrix peak (f32 accumulate), TFLOP/s, at its datasheet
  /// clock; 0 where the chip has no matrix unit ext uses.
  double tensorF16Tflops = 0;
  /// Device memory bandwidth, bytes/s.
  double dramBytesPerSecond = 0;
  /// Sustained L2 read bandwidth, bytes/s: an assumption (no datasheet
  /// quotes it; microbenchmarks vary by 2x with access pattern).
  double l2BytesPerSecond = 0;
  /// L2 capacity a wave's tiles share (AMD: the Infinity Cache where the
  /// product has one), bytes.
  uint64_t l2Bytes = 0;
  /// Shared memory (LDS) bytes one multiprocessor serves per clock.
  unsigned sharedBytesPerClock = 128;
  /// Occupancy limits per multiprocessor.
  uint64_t sharedBytesPerMultiprocessor = 0;
  unsigned registersPerMultiprocessor = 65536;
  unsigned maxThreadsPerMultiprocessor = 2048;
  unsigned maxBlocksPerMultiprocessor = 32;
  /// Register allocation granularity per thread (NVIDIA allocates in
  /// units of 8 per thread, AMD CDNA VGPRs in units of 8).
  unsigned registerGranule = 8;
  /// Global memory latency a k-loop must hide, in clocks (order of
  /// magnitude, for the model's pipelining term).
  unsigned globalLatencyClocks = 600;
};

/// The rates of `chip`'s usual product, from the same row as its limits.
ChipThroughput lookupChipThroughput(const ChipInfo &chip);

} // namespace ext

#endif // EXT_MODEL_CHIP_H
