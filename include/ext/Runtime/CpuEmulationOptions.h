//===- CpuEmulationOptions.h - a host's emulator settings -------*- C++ -*-===//
//
// The host side of the CPU emulation runtime's contract (runtime/cpu,
// libExtCpuEmulationRuntime.so), apart from what kernels call
// (CpuEmulationABI.h): the settings a runner gives the launches it makes.
// Plain C, like the rest of the runtime's interface.
//
// Settings and the error channel of __ext_emu_return_errors belong to the
// calling OS thread: a launch runs its fibers on the thread that calls
// __ext_emu_launch, so two host threads running kernels at once (Python
// threads) never see each other's settings or errors.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPUEMULATIONOPTIONS_H
#define EXT_RUNTIME_CPUEMULATIONOPTIONS_H

#include <stdint.h>

/// The fields of ExtEmuOptions a host sets; the others keep their
/// environment's value (EXT_EMU_*, for mlir-runner users), else the default.
enum ExtEmuOptionField {
  EXT_EMU_OPT_SEED = 1 << 0,
  EXT_EMU_OPT_SCHEDULE = 1 << 1,
  EXT_EMU_OPT_WARP_SIZE = 1 << 2,
  EXT_EMU_OPT_RACECHECK = 1 << 3,
  EXT_EMU_OPT_BANK_CONFLICTS = 1 << 4,
  EXT_EMU_OPT_PROGRESS = 1 << 5,
  EXT_EMU_OPT_STACK_KB = 1 << 6,
  EXT_EMU_OPT_MAX_RESIDENT_THREADS = 1 << 7,
  EXT_EMU_OPT_SPIN_LIMIT = 1 << 8,
  EXT_EMU_OPT_THREADS = 1 << 9,
};

/// How threads interleave at yield points (EXT_EMU_SCHEDULE).
enum ExtEmuSchedule {
  EXT_EMU_SCHEDULE_RANDOM = 0,
  EXT_EMU_SCHEDULE_ROUND_ROBIN = 1,
  EXT_EMU_SCHEDULE_SEQUENTIAL = 2,
};

/// The emulator's settings for the launches of one host thread, each field
/// the typed twin of an environment variable (runtime/cpu/Emulator.h).
typedef struct ExtEmuOptions {
  uint32_t fields;       // ExtEmuOptionField bits of the fields given
  int32_t schedule;      // ExtEmuSchedule
  int32_t warpSize;      // 32 or 64
  int32_t racecheck;     // 0 or 1
  int32_t bankConflicts; // 0 or 1
  int32_t progress;      // 0 or 1
  uint64_t seed;         // permutes the interleaving; 0 is thread order
  uint64_t stackKB;      // usable stack per thread (at least 16)
  uint64_t maxResidentThreads;
  uint64_t spinLimit;
  uint64_t threads;      // worker threads; 0 is one per core
} ExtEmuOptions;

#ifdef __cplusplus
extern "C" {
#endif

/// The options of the launches the calling host thread makes from now on
/// (copied; NULL: none, back to the environment's).
void __ext_emu_set_launch_options(const ExtEmuOptions *options);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // EXT_RUNTIME_CPUEMULATIONOPTIONS_H
