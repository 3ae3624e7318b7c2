//===- PrintedOutput.cpp - gpu.printf lines in block order ----------------===//

#include "PrintedOutput.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

using namespace ext::emu;

void PrintedOutput::hold(Thread &t, std::string text) {
  t.block->printed.push_back({t.warp, t.lane, t.printCount++, std::move(text)});
}

void PrintedOutput::blockDone(int64_t block, std::vector<PrintedLine> lines) {
  waiting[block] = std::move(lines);
  while (!waiting.empty() && waiting.begin()->first == next) {
    std::vector<PrintedLine> &ready = waiting.begin()->second;
    std::stable_sort(ready.begin(), ready.end(),
                     [](const PrintedLine &x, const PrintedLine &y) {
                       return std::tie(x.warp, x.sequence, x.lane) <
                              std::tie(y.warp, y.sequence, y.lane);
                     });
    for (const PrintedLine &line : ready)
      std::fwrite(line.text.data(), 1, line.text.size(), stdout);
    waiting.erase(waiting.begin());
    ++next;
  }
}

void PrintedOutput::flushAll() {
  // After a failure, blocks that never ran leave gaps: what the others
  // printed still comes out, in block order.
  while (!waiting.empty()) {
    next = waiting.begin()->first;
    blockDone(next, std::move(waiting.begin()->second));
  }
  std::fflush(stdout);
}
