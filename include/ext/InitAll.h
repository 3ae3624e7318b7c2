//===- InitAll.h - register everything ext provides -------------*- C++ -*-===//

#ifndef EXT_INITALL_H
#define EXT_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace ext {

/// Adds ext's dialects to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers ext's passes and pipelines with the global registry.
void registerAllPasses();

} // namespace ext

#endif // EXT_INITALL_H
