//===- ChipInfo.cpp - the one model of a GPU chip -------------------------===//
//
// Sources: CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability" (shared memory per block, threads, registers); AMD's CDNA2 and
// CDNA3 ISA guides and the ROCm "GPU hardware specifications" table (LDS,
// CUs, VGPRs), the PTX ISA's per-instruction target requirements, AMD's
// matrix instruction calculator (MFMA on CDNA).
//
//===----------------------------------------------------------------------===//

#include "ext/Support/ChipInfo.h"
#include "ext/Support/ChipThroughput.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace ext;

namespace {
constexpr uint64_t kKB = 1024;

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

ChipInfo nvidia(llvm::StringRef name, unsigned sm) {
  ChipInfo info;
  info.name = name.str();
  info.vendor = GpuVendor::Nvidia;
  info.smVersion = sm;
  info.archSpecific = name.ends_with("a");
  info.hasAsyncCopy = sm >= 80;
  info.hasMmaSync = sm >= 80; // m16n8k16 with bf16, m16n8k8 tf32
  info.hasClusters = sm >= 90;
  // wgmma is a feature of sm_90a alone (not of sm_90, nor of sm_100a).
  info.hasWarpgroupMma = sm == 90 && info.archSpecific;
  info.staticSharedBytesPerBlock = 48 * kKB;
  info.maxRegistersPerThread = 255;
  info.warpSize = 32;
  // Opt-in shared memory per block and the SM count of the usual product.
  struct Row {
    unsigned sm;
    uint64_t maxSharedKB;
    unsigned sms;
  };
  // Ordered by version; a chip takes the last row at or below it.
  static const Row rows[] = {
      {50, 48, 16},   // Maxwell
      {60, 48, 56},   // P100
      {70, 96, 80},   // V100
      {75, 64, 40},   // T4
      {80, 163, 108}, // A100
      {86, 99, 84},   // A40 / RTX 30
      {87, 163, 16},  // Orin
      {89, 99, 142},  // L40S / RTX 40
      {90, 227, 132}, // H100 / H200 SXM
      {100, 227, 148}, // B200
      {120, 99, 170}, // RTX 50
  };
  const Row *match = &rows[0];
  for (const Row &row : rows)
    if (row.sm <= sm)
      match = &row;
  info.maxSharedBytesPerBlock = match->maxSharedKB * kKB;
  info.multiprocessors = match->sms;
  return info;
}

std::optional<ChipInfo> amd(llvm::StringRef name) {
  llvm::StringRef digits = name.drop_front(3);
  if (digits.empty() || !llvm::isDigit(digits.front()))
    return std::nullopt;
  ChipInfo info;
  info.name = name.str();
  info.vendor = GpuVendor::Amd;
  info.staticSharedBytesPerBlock = info.maxSharedBytesPerBlock = 64 * kKB;
  info.maxBlockDim[2] = 1024;
  // GCN and CDNA (gfx9) run 64-lane waves; RDNA (gfx10-12) 32-lane ones
  // (wave64 there is a compiler mode ext does not use).
  bool gfx9 = digits.starts_with("9");
  info.warpSize = gfx9 ? 64 : 32;
  info.maxPrivateBytesPerThread = 8 * kKB * kKB / info.warpSize;
  // CDNA's LDS: 32 banks of 4 bytes over a 64-lane wave; gfx950's LDS and
  // RDNA's are not modelled.
  info.hasBankModel = gfx9 && !digits.starts_with("950");
  info.hasMfma = digits.starts_with("908") || digits.starts_with("90a") ||
                 digits.starts_with("94") || digits.starts_with("950");
  // gfx90a/gfx94x: one file of 512 VGPRs per lane (256 architectural + 256
  // accumulation); older and RDNA chips: 256.
  bool unifiedVgprs = digits.starts_with("90a") || digits.starts_with("94") ||
                      digits.starts_with("95");
  info.maxRegistersPerThread = unifiedVgprs ? 512 : 256;
  if (digits.starts_with("942"))
    info.multiprocessors = 304; // MI300X
  else if (digits.starts_with("950")) {
    info.multiprocessors = 256; // MI355X
    info.staticSharedBytesPerBlock = info.maxSharedBytesPerBlock = 160 * kKB;
  } else if (digits.starts_with("94"))
    info.multiprocessors = 228; // MI300A
  else if (digits.starts_with("90a"))
    info.multiprocessors = 104; // MI210 (an MI250X GCD has 110)
  else if (digits.starts_with("908"))
    info.multiprocessors = 120; // MI100
  else if (digits.starts_with("11"))
    info.multiprocessors = 96; // RX 7900 XTX
  else
    info.multiprocessors = 60;
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

// Rates of the products the SM and CU counts above are for. Sources: NVIDIA's
// A100, H100/H200 and B200 datasheets (boost clock, dense f16 tensor peak,
// memory bandwidth, L2 size), the CUDA C++ Programming Guide's occupancy
// table (per-SM shared memory, threads, blocks), AMD's MI100, MI210 and
// MI300X datasheets and the CDNA3 ISA guide. L2 bandwidths are assumptions
// (docs/Performance.md: H200 5.5 TB/s, MI300X 14.7 TB/s).
namespace {
struct ProductRow {
  /// NVIDIA: the row of chips sm_N at or above `sm` (the last such row);
  /// AMD: chips whose name starts with `prefix`.
  unsigned sm;
  const char *prefix;
  const char *product;
  double clockGHz, tensorTflops, dramTBs, l2TBs;
  unsigned l2MB, sharedKBPerSM, fp32Fma, maxThreads;
};

constexpr ProductRow kNvidiaProducts[] = {
    {0, "", "Pascal", 1.53, 0, 0.9, 1.5, 6, 96, 64, 2048},
    {70, "", "V100", 1.53, 0, 0.9, 1.5, 6, 96, 64, 2048},
    {75, "", "T4", 1.59, 0, 0.32, 1.5, 6, 64, 64, 1024},
    {80, "", "A100 SXM 80GB", 1.41, 312, 2.039, 4.0, 40, 164, 64, 2048},
    {86, "", "A40", 1.74, 150, 0.696, 2.5, 6, 100, 128, 1536},
    {87, "", "Orin", 1.3, 43, 0.204, 0.5, 4, 164, 64, 2048},
    {89, "", "L40S", 2.52, 362, 0.864, 2.5, 96, 100, 128, 1536},
    {90, "", "H200 SXM", 1.98, 989.4, 4.8, 5.5, 50, 228, 128, 2048},
    {100, "", "B200", 1.965, 2250, 8.0, 10.0, 126, 228, 128, 2048},
    {120, "", "RTX 5090", 2.41, 419, 1.79, 2.5, 96, 100, 128, 1536},
};
constexpr ProductRow kAmdProducts[] = {
    {0, "gfx942", "MI300X", 2.1, 1307.4, 5.3, 14.7, 256, 64, 64, 2048},
    {0, "gfx94", "MI300A", 2.1, 1307.4, 5.3, 14.7, 256, 64, 64, 2048},
    {0, "gfx950", "MI355X", 2.4, 2300, 8.0, 14.7, 256, 160, 64, 2048},
    {0, "gfx90a", "MI210", 1.7, 181.0, 1.6, 4.0, 8, 64, 64, 2048},
    {0, "gfx908", "MI100", 1.502, 184.6, 1.23, 3.0, 8, 64, 64, 2048},
    {0, "gfx", "RDNA", 2.5, 0, 0.96, 3.0, 6, 64, 64, 2048},
};
} // namespace

ChipThroughput ext::lookupChipThroughput(const ChipInfo &chip) {
  const ProductRow *row = nullptr;
  if (chip.isAmd()) {
    for (const ProductRow &r : kAmdProducts)
      if (!row && llvm::StringRef(chip.name).starts_with(r.prefix))
        row = &r;
  } else {
    for (const ProductRow &r : kNvidiaProducts)
      if (r.sm <= chip.smVersion)
        row = &r;
  }
  if (!row)
    row = chip.isAmd() ? &kAmdProducts[std::size(kAmdProducts) - 1]
                       : &kNvidiaProducts[0];
  ChipThroughput t;
  t.product = row->product;
  t.clockHz = row->clockGHz * 1e9;
  t.tensorF16Tflops = row->tensorTflops;
  t.dramBytesPerSecond = row->dramTBs * 1e12;
  t.l2BytesPerSecond = row->l2TBs * 1e12;
  t.l2Bytes = uint64_t(row->l2MB) << 20;
  t.sharedBytesPerMultiprocessor = row->sharedKBPerSM * kKB;
  t.fp32FmaPerClock = row->fp32Fma;
  t.maxThreadsPerMultiprocessor = row->maxThreads;
  if (chip.isAmd()) {
    // 4 SIMDs x their VGPR file x 64 lanes; the LDS is the block's limit.
    t.registersPerMultiprocessor = 4 * chip.maxRegistersPerThread * 64;
    t.globalLatencyClocks = 800;
  } else {
    t.maxBlocksPerMultiprocessor = chip.smVersion >= 80 ? 32 : 16;
  }
  return t;
}
