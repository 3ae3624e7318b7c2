//===- GuardedAssert.h - asserts whose protected work is skipped -*- C++ -*-===//
//
// A `cf.assert` carrying the unit attribute `ext.guarded` sits on a path that
// skips the work it protects (ext-compute-to-loops puts its size checks in
// the else branch of an `scf.if` around the loops). Continuing after it is
// safe, so the CPU emulation reports it to the caller as an error of the
// call instead of ending the process; any other host assert ends it.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_GUARDEDASSERT_H
#define EXT_SUPPORT_GUARDEDASSERT_H

#include "llvm/ADT/StringRef.h"

namespace ext {
inline constexpr llvm::StringLiteral kGuardedAssertAttrName = "ext.guarded";
} // namespace ext

#endif // EXT_SUPPORT_GUARDEDASSERT_H
