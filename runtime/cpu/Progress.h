//===- Progress.h - feedback during long emulated launches -------*- C++ -*-===//
//
// An emulated launch of a large grid can run for minutes. Two seconds in,
// the launch's size and the time it will take are printed once on stderr;
// on a terminal a progress line (blocks done of total, time left) is then
// kept up to date. The estimate counts the running blocks' partial work:
// blocks that run interleaved (spinning on each other, or on one worker with
// random switching) finish together, late, and a rate taken from finished
// blocks alone would be several times too slow at the start; resident blocks
// that have not run yet count nothing.
// EXT_EMU_PROGRESS=0 silences both; =1 prints both from the first finished
// block, the progress as one line per block (for logs and tests).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_PROGRESS_H
#define EXT_RUNTIME_CPU_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace ext::emu {

class LaunchProgress {
public:
  enum class Mode { Off, Auto, Always };

  LaunchProgress(std::string kernel, int64_t totalBlocks,
                 int64_t blockThreads, int32_t workers, Mode mode);
  /// Block `id` ran its first thread; it finished (or was abandoned).
  void blockStarted(int64_t id);
  void blockRetired(int64_t id);
  /// Blocks' worth of work done so far: the finished ones, and each
  /// running one's time since it started over the mean time a finished
  /// block took (at most 1).
  double workDone() const;
  /// The launch ended: ends the progress line if one is shown.
  void finish();

private:
  using Clock = std::chrono::steady_clock;
  std::string kernel;
  int64_t total, threads, done = 0;
  int32_t workers;
  /// Running blocks' start times; finished blocks' summed durations.
  std::map<int64_t, double> residentSince;
  double finishedSeconds = 0;
  Mode mode;
  bool terminal, announced = false, lineShown = false;
  Clock::time_point start, lastLine;

  double elapsed() const;
  void announce(double seconds);
  void showLine(double seconds);
};

/// "4m31s", "12.5s".
std::string formatDuration(double seconds);

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_PROGRESS_H
