//===- Passes.h - ext conversion passes -------------------------*- C++ -*-===//

#ifndef EXT_CONVERSION_PASSES_H
#define EXT_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace ext {

#define GEN_PASS_DECL
#include "ext/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ext/Conversion/Passes.h.inc"

} // namespace ext

#endif // EXT_CONVERSION_PASSES_H
