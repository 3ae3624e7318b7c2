//===- Chip.cpp - the one model of a GPU chip -----------------------------===//
//
// Two tables, one row per NVIDIA generation and one per AMD family, each row
// holding everything known of the chips it covers: limits, instructions and
// the rates of the usual product. Sources: CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability" (shared memory per
// block, threads, registers, blocks per SM); the PTX ISA's per-instruction
// target requirements; NVIDIA's A100, H100/H200 and B200 datasheets (boost
// clock, dense f16 tensor peak, memory bandwidth, L2 size); AMD's CDNA2 and
// CDNA3 ISA guides, the ROCm "GPU hardware specifications" table (LDS, CUs,
// VGPRs), AMD's matrix instruction calculator (MFMA on CDNA) and the MI100,
// MI210 and MI300X datasheets. L2 bandwidths are assumptions
// (docs/Performance.md: H200 5.5 TB/s, MI300X 14.7 TB/s).
//
//===----------------------------------------------------------------------===//

#include "ext/Model/Chip.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace ext;

namespace {
constexpr uint64_t kKB = 1024;

/// What a product sells at: the rates performance models read.
struct ProductRates {
  const char *product;
  double clockGHz, tensorTflops, dramTBs, l2TBs;
  unsigned l2MB, sharedKBPerSM, fp32Fma, maxThreadsPerSM;
};

/// One NVIDIA generation: the chips sm_N from `sm` up to the next row.
struct NvidiaRow {
  unsigned sm;
  /// Opt-in shared memory per block, and the usual product's SMs.
  uint64_t maxSharedKB;
  unsigned sms;
  unsigned maxBlocksPerSM;
  /// cp.async, redux.sync and mma.sync (sm_80); FP8 matrix operands
  /// (sm_89); clusters, TMA (sm_90).
  bool asyncCopy, redux, mmaSync, fp8, clusters, tma;
  /// wgmma exists on this generation's first chip with the `a` suffix alone
  /// (sm_90a: not sm_90, nor sm_100a).
  bool warpgroupMma;
  /// ChipInfo::nvptxFeatures of this generation's first chip.
  const char *nvptxFeatures;
  ProductRates rates;
};

// Ordered by version; a chip takes the last row at or below it (the first
// row below it).
constexpr NvidiaRow kNvidia[] = {
    {50, 48, 16, 16, false, false, false, false, false, false, false,
     "", {"Pascal", 1.53, 0, 0.9, 1.5, 6, 96, 64, 2048}}, // Maxwell
    {60, 48, 56, 16, false, false, false, false, false, false, false,
     "", {"Pascal", 1.53, 0, 0.9, 1.5, 6, 96, 64, 2048}}, // P100
    {70, 96, 80, 16, false, false, false, false, false, false, false,
     "", {"V100", 1.53, 0, 0.9, 1.5, 6, 96, 64, 2048}},
    {75, 64, 40, 16, false, false, false, false, false, false, false,
     "", {"T4", 1.59, 0, 0.32, 1.5, 6, 64, 64, 1024}},
    {80, 163, 108, 32, true, true, true, false, false, false, false,
     "", {"A100 SXM 80GB", 1.41, 312, 2.039, 4.0, 40, 164, 64, 2048}},
    {86, 99, 84, 32, true, true, true, false, false, false, false,
     "", {"A40", 1.74, 150, 0.696, 2.5, 6, 100, 128, 1536}},
    {87, 163, 16, 32, true, true, true, false, false, false, false,
     "", {"Orin", 1.3, 43, 0.204, 0.5, 4, 164, 64, 2048}},
    {89, 99, 142, 32, true, true, true, true, false, false, false,
     "", {"L40S", 2.52, 362, 0.864, 2.5, 96, 100, 128, 1536}},
    {90, 227, 132, 32, true, true, true, true, true, true, true,
     "+ptx80", {"H200 SXM", 1.98, 989.4, 4.8, 5.5, 50, 228, 128, 2048}},
    {100, 227, 148, 32, true, true, true, true, true, true, false,
     "", {"B200", 1.965, 2250, 8.0, 10.0, 126, 228, 128, 2048}},
    {120, 99, 170, 32, true, true, true, true, true, true, false,
     "", {"RTX 5090", 2.41, 419, 1.79, 2.5, 96, 100, 128, 1536}},
};

/// One AMD family: the chips whose name starts with `prefix` (the first
/// matching row).
struct AmdRow {
  const char *prefix;
  unsigned cus;
  uint64_t ldsKB;
  /// GCN and CDNA (gfx9) run 64-lane waves; RDNA (gfx10-12) 32-lane ones
  /// (wave64 there is a compiler mode ext does not use).
  unsigned waveSize;
  bool mfma;
  /// VGPRs per lane: gfx90a/gfx94x/gfx950 have one file of 512 (256
  /// architectural + 256 accumulation); older and RDNA chips 256.
  unsigned vgprs;
  /// CDNA's LDS: 32 banks of 4 bytes over a 64-lane wave; gfx950's LDS and
  /// RDNA's are not modelled.
  bool bankModel;
  ProductRates rates;
};

constexpr AmdRow kAmd[] = {
    {"gfx942", 304, 64, 64, true, 512, true,
     {"MI300X", 2.1, 1307.4, 5.3, 14.7, 256, 64, 64, 2048}},
    {"gfx950", 256, 160, 64, true, 512, false,
     {"MI355X", 2.4, 2300, 8.0, 14.7, 256, 160, 64, 2048}},
    {"gfx94", 228, 64, 64, true, 512, true,
     {"MI300A", 2.1, 1307.4, 5.3, 14.7, 256, 64, 64, 2048}},
    {"gfx90a", 104, 64, 64, true, 512, true, // MI210 (an MI250X GCD: 110)
     {"MI210", 1.7, 181.0, 1.6, 4.0, 8, 64, 64, 2048}},
    {"gfx908", 120, 64, 64, true, 256, true,
     {"MI100", 1.502, 184.6, 1.23, 3.0, 8, 64, 64, 2048}},
    {"gfx9", 60, 64, 64, false, 256, true,
     {"RDNA", 2.5, 0, 0.96, 3.0, 6, 64, 64, 2048}},
    {"gfx11", 96, 64, 32, false, 256, false, // RX 7900 XTX
     {"RDNA", 2.5, 0, 0.96, 3.0, 6, 64, 64, 2048}},
    {"gfx", 60, 64, 32, false, 256, false,
     {"RDNA", 2.5, 0, 0.96, 3.0, 6, 64, 64, 2048}},
};

/// sm_NN[a|f] -> NN.
std::optional<unsigned> parseSmVersion(llvm::StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (!chip.consume_back("a"))
    chip.consume_back("f");
  unsigned version;
  if (chip.empty() || !llvm::all_of(chip, llvm::isDigit) ||
      chip.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

const NvidiaRow &nvidiaRow(unsigned sm) {
  const NvidiaRow *match = &kNvidia[0];
  for (const NvidiaRow &row : kNvidia)
    if (row.sm <= sm)
      match = &row;
  return *match;
}

const AmdRow &amdRow(llvm::StringRef name) {
  for (const AmdRow &row : kAmd)
    if (name.starts_with(row.prefix))
      return row;
  return kAmd[std::size(kAmd) - 1];
}

ChipInfo nvidia(llvm::StringRef name, unsigned sm) {
  const NvidiaRow &row = nvidiaRow(sm);
  ChipInfo info;
  info.name = name.str();
  info.vendor = GpuVendor::Nvidia;
  info.smVersion = sm;
  info.archSpecific = name.ends_with("a");
  info.hasAsyncCopy = row.asyncCopy;
  info.hasRedux = row.redux;
  info.hasMmaSync = row.mmaSync; // m16n8k16 with bf16, m16n8k8 tf32
  info.hasFp8 = row.fp8;
  info.hasClusters = row.clusters;
  info.hasTma = row.tma;
  info.hasWarpgroupMma = row.warpgroupMma && sm == row.sm && info.archSpecific;
  info.maxClusterCtas = row.clusters ? kPortableClusterCtas : 1;
  if (sm == row.sm)
    info.nvptxFeatures = row.nvptxFeatures;
  info.staticSharedBytesPerBlock = 48 * kKB;
  info.maxSharedBytesPerBlock = row.maxSharedKB * kKB;
  info.multiprocessors = row.sms;
  return info;
}

std::optional<ChipInfo> amd(llvm::StringRef name) {
  llvm::StringRef digits = name.drop_front(3);
  if (digits.empty() || !llvm::isDigit(digits.front()))
    return std::nullopt;
  const AmdRow &row = amdRow(name);
  ChipInfo info;
  info.name = name.str();
  info.vendor = GpuVendor::Amd;
  info.staticSharedBytesPerBlock = info.maxSharedBytesPerBlock =
      row.ldsKB * kKB;
  info.maxBlockDim[2] = 1024;
  info.warpSize = row.waveSize;
  info.maxPrivateBytesPerThread = 8 * kKB * kKB / info.warpSize;
  info.hasBankModel = row.bankModel;
  info.hasMfma = row.mfma;
  info.maxRegistersPerThread = row.vgprs;
  // 4 SIMDs x the VGPR file x 64 lanes.
  info.registersPerBlock = 4 * row.vgprs * 64;
  info.multiprocessors = row.cus;
  return info;
}
} // namespace

std::optional<ChipInfo> ext::lookupChipInfo(llvm::StringRef chip) {
  if (std::optional<unsigned> sm = parseSmVersion(chip))
    return nvidia(chip, *sm);
  if (chip.starts_with("gfx"))
    return amd(chip);
  return std::nullopt;
}

llvm::StringRef ext::unknownChipMessage() {
  return "is neither sm_NN (NVIDIA) nor gfxNNN (AMD)";
}

std::string ext::formatBytes(uint64_t bytes) {
  if (bytes < kKB)
    return llvm::formatv("{0} bytes", bytes).str();
  return llvm::formatv("{0} bytes ({1:F1} KB)", bytes, double(bytes) / kKB)
      .str();
}

ChipThroughput ext::lookupChipThroughput(const ChipInfo &chip) {
  const ProductRates &r = chip.isAmd() ? amdRow(chip.name).rates
                                       : nvidiaRow(chip.smVersion).rates;
  ChipThroughput t;
  t.product = r.product;
  t.clockHz = r.clockGHz * 1e9;
  t.tensorF16Tflops = r.tensorTflops;
  t.dramBytesPerSecond = r.dramTBs * 1e12;
  t.l2BytesPerSecond = r.l2TBs * 1e12;
  t.l2Bytes = uint64_t(r.l2MB) << 20;
  t.sharedBytesPerMultiprocessor = r.sharedKBPerSM * kKB;
  t.fp32FmaPerClock = r.fp32Fma;
  t.maxThreadsPerMultiprocessor = r.maxThreadsPerSM;
  if (chip.isAmd()) {
    t.registersPerMultiprocessor = chip.registersPerBlock;
    t.globalLatencyClocks = 800;
  } else {
    t.maxBlocksPerMultiprocessor = nvidiaRow(chip.smVersion).maxBlocksPerSM;
  }
  return t;
}
