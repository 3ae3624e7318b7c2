//===- ScheduleVerification.h - checks of a compute's schedule --*- C++ -*-===//
//
// What ExtOps.cpp (ext.compute's verifier) needs of ScheduleVerification.cpp
// (whether a schedule fits the compute it is attached to). Not a public
// header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_IR_SCHEDULEVERIFICATION_H
#define EXT_LIB_DIALECT_EXT_IR_SCHEDULEVERIFICATION_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

namespace ext {
namespace detail {

/// Checks that `schedule` fits `op`: one tile size and thread count per
/// axis, block bindings that the decomposition can realize, thread counts a
/// CTA can hold and that divide their tiles, cached operands that exist.
llvm::LogicalResult verifyScheduleFor(ComputeOp op, ScheduleAttr schedule);

} // namespace detail
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_IR_SCHEDULEVERIFICATION_H
