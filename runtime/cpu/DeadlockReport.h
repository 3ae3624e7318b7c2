//===- DeadlockReport.h - why no thread of a cluster can go on --*- C++ -*-===//
//
// The message of a launch that deadlocked: where each block's threads wait.
// Apart from the scheduler because it only reads the launch's state (the
// scheduler decides that a cluster is stuck; this says how), and its
// wording is what tests match.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_DEADLOCKREPORT_H
#define EXT_RUNTIME_CPU_DEADLOCKREPORT_H

#include "UnitContext.h"

#include <string>

namespace ext::emu {

/// "deadlock: no thread can continue ...": for each block of `c`, how many
/// threads wait at which barrier or collective, and how many exited.
std::string describeDeadlock(const UnitContext &ctx, const Cluster &c);

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_DEADLOCKREPORT_H
