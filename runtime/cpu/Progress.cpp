//===- Progress.cpp - feedback during long emulated launches --------------===//

#include "Progress.h"

#include <cstdio>
#include <unistd.h>

using namespace ext::emu;

namespace {
/// Launches shorter than this say nothing (Mode::Auto).
constexpr double kQuietSeconds = 2.0;
/// The progress line is redrawn at most this often.
constexpr double kLineInterval = 0.5;
} // namespace

std::string ext::emu::formatDuration(double seconds) {
  char text[32];
  if (seconds < 60)
    std::snprintf(text, sizeof(text), "%.1fs", seconds);
  else if (seconds < 3600)
    std::snprintf(text, sizeof(text), "%dm%02ds", int(seconds) / 60,
                  int(seconds) % 60);
  else
    std::snprintf(text, sizeof(text), "%dh%02dm", int(seconds) / 3600,
                  int(seconds) / 60 % 60);
  return text;
}

LaunchProgress::LaunchProgress(std::string kernel, int64_t totalBlocks,
                               int64_t blockThreads, Mode mode)
    : kernel(std::move(kernel)), total(totalBlocks), threads(blockThreads),
      mode(mode), terminal(isatty(fileno(stderr))), start(Clock::now()),
      lastLine(start) {}

double LaunchProgress::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void LaunchProgress::announce(double seconds) {
  announced = true;
  double estimate = seconds / double(done) * double(total);
  std::fflush(stdout);
  std::fprintf(stderr,
               "ext-emu: kernel '%s': %lld blocks of %lld threads on the "
               "emulator; at the rate of the first %lld blocks the launch "
               "takes about %s\n",
               kernel.c_str(), (long long)total, (long long)threads,
               (long long)done, formatDuration(estimate).c_str());
}

void LaunchProgress::showLine(double seconds) {
  lastLine = Clock::now();
  double left = seconds / double(done) * double(total - done);
  bool redraw = terminal && mode == Mode::Auto;
  std::fprintf(stderr, "%sext-emu: kernel '%s': %lld/%lld blocks (%d%%), %s, "
               "about %s left%s",
               redraw ? "\r" : "", kernel.c_str(), (long long)done,
               (long long)total, int(100 * done / total),
               formatDuration(seconds).c_str(), formatDuration(left).c_str(),
               redraw ? "\033[K" : "\n");
  std::fflush(stderr);
  lineShown = redraw;
}

void LaunchProgress::blocksDone(int64_t count) {
  if (mode == Mode::Off || count <= 0)
    return;
  done += count;
  double seconds = elapsed();
  if (mode == Mode::Auto && seconds < kQuietSeconds)
    return;
  if (!announced) {
    announce(seconds);
    if (mode == Mode::Auto && !terminal)
      return;
  }
  if (mode == Mode::Auto && !terminal)
    return;
  if (mode == Mode::Always ||
      std::chrono::duration<double>(Clock::now() - lastLine).count() >=
          kLineInterval ||
      done == total)
    showLine(seconds);
}

void LaunchProgress::finish() {
  if (lineShown)
    std::fputc('\n', stderr);
  lineShown = false;
}
