//===- Progress.h - feedback during long emulated launches -------*- C++ -*-===//
//
// An emulated launch of a large grid can run for minutes. Two seconds in,
// the launch's size and, at the rate of the blocks finished so far, the time
// it will take are printed once on stderr; on a terminal a progress line
// (blocks done of total, time left) is then kept up to date.
// EXT_EMU_PROGRESS=0 silences both; =1 prints both from the first finished
// block, the progress as one line per block (for logs and tests).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_PROGRESS_H
#define EXT_RUNTIME_CPU_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <string>

namespace ext::emu {

class LaunchProgress {
public:
  enum class Mode { Off, Auto, Always };

  LaunchProgress(std::string kernel, int64_t totalBlocks,
                 int64_t blockThreads, Mode mode);
  /// `count` more blocks finished.
  void blocksDone(int64_t count);
  /// The launch ended: ends the progress line if one is shown.
  void finish();

private:
  using Clock = std::chrono::steady_clock;
  std::string kernel;
  int64_t total, threads, done = 0;
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
