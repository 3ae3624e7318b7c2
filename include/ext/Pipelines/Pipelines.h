//===- Pipelines.h - ext's pass pipelines -----------------------*- C++ -*-===//

#ifndef EXT_PIPELINES_PIPELINES_H
#define EXT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace ext {

/// ext-cpu-pipeline: ext.compute (and any scf/affine/memref/arith/math code
/// around it) down to the LLVM dialect, ready for the ExecutionEngine or
/// mlir-translate --mlir-to-llvmir.
void buildCpuPipeline(mlir::OpPassManager &pm);

/// ext-schedule-to-gpu: ext-apply-schedule, ext-lower-decomposition,
/// ext-lower-tile-ops, ext-lower-storage-align, then ext-lower-to-loops for
/// the unscheduled computes, canonicalization, and index computations sunk
/// into the launches (so outlining passes no constants as kernel arguments).
void buildScheduleToGpuPipeline(mlir::OpPassManager &pm);

/// Registers ext's named pipelines with the global pass registry.
void registerPipelines();

} // namespace ext

#endif // EXT_PIPELINES_PIPELINES_H
