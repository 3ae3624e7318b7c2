//===- EmulatorOptions.h - typed settings of the CPU emulator ---*- C++ -*-===//
//
// What a run asks of ext's CPU emulation runtime (runtime/cpu): lanes per
// warp, the interleaving of threads, race detection, bank-conflict counting,
// progress. The runner hands them to the runtime for the calling thread only
// (__ext_emu_set_launch_options); a setting left unset keeps the runtime's
// environment default (EXT_EMU_*, for mlir-runner users) or its own.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNNER_EMULATOROPTIONS_H
#define EXT_RUNNER_EMULATOROPTIONS_H

#include "ext/Runtime/CpuEmulationOptions.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace ext::runner {

/// How threads interleave at yield points (runtime/cpu/Emulator.h, Policy).
enum class Schedule { Random, RoundRobin, Sequential };

/// "random", "round-robin" or "sequential"; nullopt for anything else.
std::optional<Schedule> parseSchedule(llvm::StringRef name);

struct EmulatorOptions {
  /// 32 (NVIDIA) or 64 (AMD CDNA waves).
  std::optional<int32_t> warpSize;
  /// Permutes the interleaving; 0 is thread order.
  std::optional<uint64_t> seed;
  std::optional<Schedule> schedule;
  std::optional<bool> racecheck;
  std::optional<bool> bankConflicts;
  std::optional<bool> progress;
  std::optional<uint64_t> stackKB;
  std::optional<uint64_t> maxResidentThreads;
  std::optional<uint64_t> spinLimit;
  /// Worker threads a launch spreads its blocks over; 0 is one per core.
  std::optional<uint64_t> threads;

  /// The lanes of the chip emulated kernels stand for, from the chip model
  /// (ext/Model/Chip.h): 64 for CDNA's waves, 32 for NVIDIA's warps
  /// and RDNA's waves; unset (the runtime's 32) for a name that is no chip.
  static EmulatorOptions forChip(llvm::StringRef chip);

  /// The runtime's C form.
  ExtEmuOptions toABI() const;
};

} // namespace ext::runner

#endif // EXT_RUNNER_EMULATOROPTIONS_H
