//===- PrintedOutput.h - gpu.printf lines in block order --------*- C++ -*-===//
//
// A launch's gpu.printf output: each block's lines are held until it
// retires, then written in block order, a block's in warp order (a warp's
// lanes' first lines, then their second ones), so the output does not
// depend on the schedule or the worker count. Apart from the scheduler
// because the order is a contract of its own (tests match it) and it needs
// nothing of scheduling.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_PRINTEDOUTPUT_H
#define EXT_RUNTIME_CPU_PRINTEDOUTPUT_H

#include "LaunchState.h"

#include <map>
#include <string>
#include <vector>

namespace ext::emu {

class PrintedOutput {
public:
  /// Holds a line `t` printed until its block retires.
  static void hold(Thread &t, std::string text);
  /// Keeps a retired block's lines and writes those now in order.
  void blockDone(int64_t block, std::vector<PrintedLine> lines);
  /// Writes what is left, in block order, and flushes stdout.
  void flushAll();

private:
  /// Retired blocks' lines not written yet, and the block to write next.
  std::map<int64_t, std::vector<PrintedLine>> waiting;
  int64_t next = 0;
};

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_PRINTEDOUTPUT_H
