//===- BankConflicts.h - shared-memory bank conflict arithmetic -*- C++ -*-===//
//
// How many wavefronts (bank-serialized passes) one warp-wide shared-memory
// access takes, under a written-down model of the hardware. Pure C++ with no
// MLIR dependency, so the static analysis (`ext-gpu-bank-conflicts`) and the CPU
// emulator's dynamic count use the same rule.
//
// The model (NVIDIA since Maxwell; AMD CDNA LDS, gfx9):
//  * shared memory is `banks` banks of `bankBytes` (32 x 4 B); byte address
//    `a` lies in word `a / 4`, bank `(a / 4) % 32`;
//  * a warp's request is served in phases of `lanesPerPhase(bytes)` lanes:
//    all lanes at once for accesses of at most 4 bytes, half-warps for 8-byte
//    accesses and quarter-warps for 16-byte ones (so that each phase moves at
//    most 128 bytes); AMD's 64-lane wave is served by the same rule, in
//    phases of 32, 16 and 8 lanes (2, 4 and 8 phases);
//  * inside a phase, lanes that touch the same word share it (broadcast, and
//    sub-word accesses to one word); a bank that must deliver `k` different
//    words takes `k` wavefronts, so the phase takes the maximum over banks;
//  * the request takes the sum over its phases that have an active lane.
// The *degree* of a request (its "N-way bank conflict") is the largest
// number of wavefronts any one phase takes; 1 is conflict-free.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_ANALYSIS_BANKCONFLICTS_H
#define EXT_ANALYSIS_BANKCONFLICTS_H

#include <cstdint>
#include <optional>
#include "ext/Model/Chip.h"

#include <string>
#include <vector>

namespace ext::bank {

struct BankModel {
  unsigned banks = 32;
  unsigned bankBytes = 4;
  unsigned warpSize = 32;
  /// The bytes after which the bank mapping repeats.
  int64_t period() const { return int64_t(banks) * bankBytes; }
  /// Lanes served together for an access of `bytes` per lane (1..16).
  unsigned lanesPerPhase(unsigned bytes) const;

  static BankModel nvidia() { return {32, 4, 32}; }
  static BankModel amdCDNA() { return {32, 4, 64}; }
  /// The model of a chip: its banks over its warp or wave; none where ext
  /// does not model the chip's shared memory (ChipInfo::hasBankModel).
  static std::optional<BankModel> of(const ext::ChipInfo &chip);
};

/// The cost of one warp-wide access.
struct Cost {
  unsigned wavefronts = 0; ///< sum over phases
  unsigned phases = 0;     ///< phases with an active lane
  unsigned degree = 0;     ///< max wavefronts of one phase (0: no lane)
  bool operator==(const Cost &o) const {
    return wavefronts == o.wavefronts && phases == o.phases &&
           degree == o.degree;
  }
};

/// The cost of a warp accessing `bytes` bytes per lane at byte addresses
/// `addresses[l]` (one per lane, `model.warpSize` of them); lanes with
/// `active[l] == false` (if `active` is given) take no part.
Cost countWavefronts(const BankModel &model, const int64_t *addresses,
                     const bool *active, unsigned bytes);

/// An affine warp access: lane `l` accesses `bytes` bytes at
/// `base + laneStride * l`, where `base` is `baseResidue + baseStep * m` for
/// some unknown integer m (`baseStep == 0`: base is exactly baseResidue).
struct AffineAccess {
  int64_t baseResidue = 0;
  int64_t baseStep = 0;
  int64_t laneStride = 0;
  unsigned bytes = 4;
};

/// The worst cost over every base the pattern allows, all lanes active.
/// Closed form (a gcd) when each lane touches whole 4-byte words or one word
/// and lane offsets are whole words; otherwise the addresses of each base
/// residue are enumerated.
Cost worstCaseAffine(const BankModel &model, const AffineAccess &access);

} // namespace ext::bank

#endif // EXT_ANALYSIS_BANKCONFLICTS_H
