//===- Progress.cpp - feedback during long emulated launches --------------===//

#include "Progress.h"

#include <algorithm>
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
                               int64_t blockThreads, int32_t workers,
                               Mode mode)
    : kernel(std::move(kernel)), total(totalBlocks), threads(blockThreads),
      workers(workers), mode(mode), terminal(isatty(fileno(stderr))),
      start(Clock::now()), lastLine(start) {}

double LaunchProgress::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double LaunchProgress::workDone() const {
  double work = double(done);
  if (done == 0)
    return work;
  double mean = finishedSeconds / double(done), now = elapsed();
  for (const auto &[id, since] : residentSince)
    work += mean > 0 ? std::min(1.0, (now - since) / mean) : 0.0;
  return std::min(work, double(total));
}

void LaunchProgress::announce(double seconds) {
  announced = true;
  double estimate = seconds * double(total) / workDone();
  std::fflush(stdout);
  std::fprintf(stderr,
               "ext-emu: kernel '%s': %lld blocks of %lld threads on %d "
               "worker thread%s; %lld blocks done in %s, the launch takes "
               "about %s\n",
               kernel.c_str(), (long long)total, (long long)threads, workers,
               workers == 1 ? "" : "s", (long long)done,
               formatDuration(seconds).c_str(),
               formatDuration(estimate).c_str());
}

void LaunchProgress::showLine(double seconds) {
  lastLine = Clock::now();
  double work = workDone();
  double left = seconds / work * (double(total) - work);
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

void LaunchProgress::blockStarted(int64_t id) {
  if (mode != Mode::Off)
    residentSince[id] = elapsed();
}

void LaunchProgress::blockRetired(int64_t id) {
  if (mode == Mode::Off)
    return;
  auto it = residentSince.find(id);
  double seconds = elapsed();
  if (it != residentSince.end()) {
    finishedSeconds += seconds - it->second;
    residentSince.erase(it);
  }
  ++done;
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
