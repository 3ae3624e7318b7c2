//===- DecompositionPlan.h - a decomposition's plan, for reports -*- C++ -*-===//
//
// The tilework::Plan (ext/Model/TileWork.h) a built-in decomposition
// attribute stands for on one problem: what the lowering emits as index
// math, for pictures and tools (ext/Support/ReportSvg.h).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_DECOMPOSITIONPLAN_H
#define EXT_DIALECT_EXT_IR_DECOMPOSITIONPLAN_H

#include "ext/Dialect/Ext/IR/ExtInterfaces.h"
#include "ext/Model/TileWork.h"

#include "mlir/IR/Attributes.h"

#include <optional>

namespace ext {

/// The plan of `decomposition` for `tiles` tiles of `iters` iterations on
/// `device`; none for a decomposition that is no built-in one (a plugin's)
/// or a problem it cannot plan.
std::optional<tilework::Plan> planOfDecomposition(mlir::Attribute decomposition,
                                                  int64_t tiles, int64_t iters,
                                                  const DeviceFacts &device);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_DECOMPOSITIONPLAN_H
