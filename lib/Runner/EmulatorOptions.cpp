//===- EmulatorOptions.cpp - typed settings of the CPU emulator -----------===//

#include "ext/Runner/EmulatorOptions.h"

#include "ext/Model/Chip.h"

#include "llvm/ADT/StringSwitch.h"

using namespace ext::runner;

std::optional<Schedule> ext::runner::parseSchedule(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Schedule>>(name)
      .Case("random", Schedule::Random)
      .Case("round-robin", Schedule::RoundRobin)
      .Case("sequential", Schedule::Sequential)
      .Default(std::nullopt);
}

EmulatorOptions EmulatorOptions::forChip(llvm::StringRef chip) {
  EmulatorOptions options;
  // The chip model's warp or wave: 64 on CDNA, 32 on NVIDIA and RDNA.
  if (std::optional<ChipInfo> info = lookupChipInfo(chip))
    options.warpSize = info->warpSize;
  return options;
}

ExtEmuOptions EmulatorOptions::toABI() const {
  ExtEmuOptions abi = {};
  // Each given field is copied and marked; the runtime resolves the rest.
  auto set = [&](const auto &value, ExtEmuOptionField field, auto &out) {
    if (!value)
      return;
    out = static_cast<std::remove_reference_t<decltype(out)>>(*value);
    abi.fields |= field;
  };
  set(warpSize, EXT_EMU_OPT_WARP_SIZE, abi.warpSize);
  set(seed, EXT_EMU_OPT_SEED, abi.seed);
  set(racecheck, EXT_EMU_OPT_RACECHECK, abi.racecheck);
  set(bankConflicts, EXT_EMU_OPT_BANK_CONFLICTS, abi.bankConflicts);
  set(progress, EXT_EMU_OPT_PROGRESS, abi.progress);
  set(stackKB, EXT_EMU_OPT_STACK_KB, abi.stackKB);
  set(maxResidentThreads, EXT_EMU_OPT_MAX_RESIDENT_THREADS,
      abi.maxResidentThreads);
  set(spinLimit, EXT_EMU_OPT_SPIN_LIMIT, abi.spinLimit);
  set(threads, EXT_EMU_OPT_THREADS, abi.threads);
  if (schedule) {
    abi.fields |= EXT_EMU_OPT_SCHEDULE;
    switch (*schedule) {
    case Schedule::Random:
      abi.schedule = EXT_EMU_SCHEDULE_RANDOM;
      break;
    case Schedule::RoundRobin:
      abi.schedule = EXT_EMU_SCHEDULE_ROUND_ROBIN;
      break;
    case Schedule::Sequential:
      abi.schedule = EXT_EMU_SCHEDULE_SEQUENTIAL;
      break;
    }
  }
  return abi;
}
