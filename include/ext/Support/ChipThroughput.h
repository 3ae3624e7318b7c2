//===- ChipThroughput.h - rates and per-multiprocessor limits ---*- C++ -*-===//
//
// The part of the chip model that performance models read: clock, unit
// rates, memory bandwidths and the per-multiprocessor limits that bound
// occupancy. ChipInfo (ChipInfo.h) says what a chip can compile and run;
// this says how fast, for the product ChipInfo::multiprocessors counts
// (H100/H200 SXM for sm_90, MI300X for gfx942). Numbers are datasheet
// leads; the L2 bandwidth is an assumption a model must state, so it is a
// field a caller may override. Implemented beside lookupChipInfo, in
// ChipInfo.cpp: one table of chips.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_CHIPTHROUGHPUT_H
#define EXT_SUPPORT_CHIPTHROUGHPUT_H

#include "ext/Support/ChipInfo.h"

#include <cstdint>

namespace ext {

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

/// The rates of `chip`'s usual product; chips without their own row take
/// the closest known generation's.
ChipThroughput lookupChipThroughput(const ChipInfo &chip);

} // namespace ext

#endif // EXT_SUPPORT_CHIPTHROUGHPUT_H
